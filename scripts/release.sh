#!/usr/bin/env bash
# npm run release: a publication in one command (CONTRIBUTING.md, "Releasing").
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "$(git status --porcelain)" ]; then
  echo "release: the checkout has uncommitted changes; commit or stash them first" >&2
  exit 1
fi
if ! ls .changeset/*.md 2>/dev/null | grep -qv '/README.md$'; then
  echo "release: no changeset to release; write one with npx changeset" >&2
  exit 1
fi
npm test
npx changeset version
version=$(node -p "require('./package.json').version")
git add package.json package-lock.json CHANGELOG.md .changeset
git commit -m "chore: release $version"
# npm publish (its prepack script builds lib/ and strips package.json) and the tag v$version on the
# release commit.
npx changeset publish
if [ -n "$(git remote)" ]; then
  git push --follow-tags
else
  echo "release: $version published; this checkout has no remote: push the commit and tag v$version"
fi
