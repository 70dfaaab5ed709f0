// Jest cannot require an ES module, and @fastify/static (loaded by mercurius) requires
// content-disposition 3, which is one. This gives every requirer the CommonJS version 1,
// whose default export is version 3's `create`.
const contentDisposition = require('../node_modules/content-disposition/index.js');
module.exports = Object.assign(contentDisposition, { create: contentDisposition });
