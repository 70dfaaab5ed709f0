// @fastify/static (loaded by mercurius) destructures `create` from content-disposition 3; the
// lockfile pins version 1 (3 needs Node 22). This gives every requirer version 1,
// whose default export is version 3's `create`.
const contentDisposition = require('../node_modules/content-disposition/index.js');
module.exports = Object.assign(contentDisposition, { create: contentDisposition });
