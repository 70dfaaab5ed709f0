import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');
/** Gitignored, outside src/ and test/ so lint and prettier leave the generated files alone. */
export const SNIPPETS_DIR = join(ROOT, '.readme-snippets');

export interface ReadmeBlock {
  language: string;
  code: string;
  /** 1-based line of the opening fence in README.md. */
  line: number;
}

/** Every fenced code block of README.md, in order. */
export function readmeBlocks(): ReadmeBlock[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const blocks: ReadmeBlock[] = [];
  const fence = /^```(\w*)\n([\s\S]*?)^```$/gm;
  for (let match = fence.exec(readme); match; match = fence.exec(readme)) {
    const line = readme.slice(0, match.index).split('\n').length;
    blocks.push({ language: match[1], code: match[2], line });
  }
  return blocks;
}

/** Writes every `ts` block to its own file, named by its README line; returns the paths. */
export function writeTsBlocks(): Map<string, ReadmeBlock> {
  const files = new Map<string, ReadmeBlock>();
  mkdirSync(SNIPPETS_DIR, { recursive: true });
  for (const block of readmeBlocks().filter((candidate) => candidate.language === 'ts')) {
    const file = join(SNIPPETS_DIR, `readme-line-${block.line}.ts`);
    writeFileSync(file, block.code);
    files.set(file, block);
  }
  return files;
}

/** The file of the one `ts` block that contains `marker`. */
export function tsBlockContaining(marker: string): string {
  const matches = [...writeTsBlocks()].filter(([, block]) => block.code.includes(marker));
  if (matches.length !== 1) {
    throw new Error(`README: expected one ts block containing ${marker}, found ${matches.length}`);
  }
  return matches[0][0];
}
