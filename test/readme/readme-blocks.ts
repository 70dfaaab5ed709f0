import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');
/** Gitignored, outside src/ and test/ so lint and prettier leave the generated files alone. */
export const SNIPPETS_DIR = join(ROOT, '.readme-snippets');

/** The user documentation: README.md and every page of docs/, as paths from the root. */
export function documentationFiles(): string[] {
  const pages = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md'));
  return ['README.md', ...pages.sort().map((name) => `docs/${name}`)];
}

/** The anchors GitHub gives the headings of a document (a path from the root). */
export function headingAnchors(document: string): Set<string> {
  const prose = readFileSync(join(ROOT, document), 'utf8').replace(/^```\w*\n[\s\S]*?^```$/gm, '');
  const headings = [...prose.matchAll(/^#{1,6} (.+)$/gm)].map((match) => match[1]);
  return new Set(
    headings.map((heading) =>
      heading
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    ),
  );
}

export interface ReadmeBlock {
  language: string;
  code: string;
  /** The document it comes from, from the root: `README.md`, `docs/keys.md`. */
  document: string;
  /** 1-based line of the opening fence in its document. */
  line: number;
}

/** Every fenced code block of one document (README.md by default), in order. */
export function readmeBlocks(document = 'README.md'): ReadmeBlock[] {
  const text = readFileSync(join(ROOT, document), 'utf8');
  const blocks: ReadmeBlock[] = [];
  const fence = /^```(\w*)\n([\s\S]*?)^```$/gm;
  for (let match = fence.exec(text); match; match = fence.exec(text)) {
    const line = text.slice(0, match.index).split('\n').length;
    blocks.push({ language: match[1], code: match[2], document, line });
  }
  return blocks;
}

/**
 * Writes `code` to `file` unless it holds it already, through a rename: suites that run at
 * once in two workers read these files, and never see one half written.
 */
function writeIfChanged(file: string, code: string): void {
  if (existsSync(file) && readFileSync(file, 'utf8') === code) return;
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, code);
  renameSync(partial, file);
}

/**
 * Writes every `ts` block of README.md and docs/ to its own file, named by its document and
 * line; returns the paths.
 */
export function writeTsBlocks(): Map<string, ReadmeBlock> {
  const files = new Map<string, ReadmeBlock>();
  mkdirSync(SNIPPETS_DIR, { recursive: true });
  for (const document of documentationFiles()) {
    for (const block of readmeBlocks(document).filter((one) => one.language === 'ts')) {
      const name = document.replace(/\.md$/, '').replace(/\//g, '-').toLowerCase();
      const file = join(SNIPPETS_DIR, `${name}-line-${block.line}.ts`);
      writeIfChanged(file, block.code);
      files.set(file, block);
    }
  }
  return files;
}

/** The file of the one `ts` block, in README.md or docs/, that contains `marker`. */
export function tsBlockContaining(marker: string): string {
  const matches = [...writeTsBlocks()].filter(([, block]) => block.code.includes(marker));
  if (matches.length !== 1) {
    throw new Error(`docs: expected one ts block containing ${marker}, found ${matches.length}`);
  }
  return matches[0][0];
}
