import type { CoreDiagnostic } from "./diagnostics.js";
import type { ListEntry, ReleasedParts } from "./skillFile.js";
import { interned, TEXT_START, type Range } from "./text.js";

/**
 * The released skills of one batch of files, packed for the trip from the thread that parsed them to the
 * namespace's. Posted as they are, each skill's parts cost the receiving thread a third of a parse to take
 * in (a few dozen small strings and arrays to copy, and every slug to look up again); packed, the numbers are
 * one array moved between threads, each distinct slug crosses once a batch and is looked up once, and only a
 * title, a summary and a line map are strings of their own.
 */
export interface PartsBatch {
  /** The batch's distinct slugs: handles, mentions as written, requirements, code-only slugs. */
  readonly words: readonly string[];
  /** Each skill's title, its summary when it has one, and its line map when that is a string. */
  readonly strings: readonly string[];
  /** Each file's record (see {@link encodePartsBatch}); -1 for a file not parsed. */
  readonly numbers: Int32Array;
  /** Each file's parts that few skills have (examples, near misses, problems, ...), or null. */
  readonly rare: readonly (RareParts | null)[];
}

/** What few skills have, posted as plain values. */
interface RareParts {
  readonly declaration?: Range;
  readonly examples?: readonly ListEntry[];
  readonly nearMisses?: readonly ListEntry[];
  readonly problems?: readonly CoreDiagnostic[];
  readonly declaredName?: { readonly value: string; readonly range: Range };
  /** A line map too large for a string of 16-bit entries. */
  readonly lines?: readonly number[];
}

const VALID_HANDLE = 1;
const ENABLED = 2;
const ADVERTISED = 4;
const HAS_SUMMARY = 8;
const NOT_PARSED = -1;
const TWO_TO_32 = 2 ** 32;

/**
 * Packs each file's parts (undefined: not parsed, the namespace's thread parses it). A file's record: its flags,
 * slug, handle, the summary's and frontmatter's offsets, the body's start, the fingerprint's high and low 32
 * bits, its text's length; then the mentions (count, and each one's slug and packed number), the requirements
 * and the code-only slugs (count and slugs). Slugs are indexes into `words`.
 */
export function encodePartsBatch(files: readonly (ReleasedParts | undefined)[]): PartsBatch {
  const words: string[] = [];
  const wordIndex = new Map<string, number>();
  const word = (value: string): number => {
    let index = wordIndex.get(value);
    if (index === undefined) {
      index = words.length;
      words.push(value);
      wordIndex.set(value, index);
    }
    return index;
  };
  const strings: string[] = [];
  const numbers: number[] = [];
  const rare: (RareParts | null)[] = [];
  for (const parts of files) {
    if (!parts) {
      numbers.push(NOT_PARSED);
      rare.push(null);
      continue;
    }
    const flags = (parts.validHandle ? VALID_HANDLE : 0) | (parts.enabled ? ENABLED : 0) | (parts.advertised ? ADVERTISED : 0) | (parts.summary !== undefined ? HAS_SUMMARY : 0);
    const fingerprint = parts.bodyFingerprint;
    numbers.push(flags, word(parts.slug), word(parts.handle), parts.summaryStart, parts.summaryEnd, parts.frontmatterStart, parts.frontmatterEnd, parts.bodyStart, Math.floor(fingerprint / TWO_TO_32), fingerprint % TWO_TO_32 | 0, parts.lines.length);
    const written = parts.mentionsWritten as readonly string[];
    const packed = parts.mentionsPacked ?? [];
    numbers.push(packed.length);
    for (let i = 0; i < packed.length; i++) numbers.push(word(written[i] ?? ""), packed[i] ?? 0);
    numbers.push(parts.requirements.length, ...parts.requirements.map(word));
    numbers.push(parts.codeOnly.length, ...parts.codeOnly.map(word));
    strings.push(parts.title);
    if (parts.summary !== undefined) strings.push(parts.summary);
    if (typeof parts.lines.lines === "string") strings.push(parts.lines.lines);
    const declaration = parts.declaration;
    const atStart = declaration.start.line === 0 && declaration.start.character === 0 && declaration.end.line === 0 && declaration.end.character === 0;
    const few: RareParts = {
      ...(atStart ? {} : { declaration }),
      ...(parts.examples.length > 0 ? { examples: parts.examples } : {}),
      ...(parts.nearMisses.length > 0 ? { nearMisses: parts.nearMisses } : {}),
      ...(parts.problems.length > 0 ? { problems: parts.problems } : {}),
      ...(parts.declaredName ? { declaredName: parts.declaredName } : {}),
      ...(typeof parts.lines.lines === "string" ? {} : { lines: parts.lines.lines }),
    };
    rare.push(Object.keys(few).length > 0 ? few : null);
  }
  return { words, strings, numbers: Int32Array.from(numbers), rare };
}

/**
 * The parts of each file of a batch, in order (undefined: not parsed), every slug the shared copy the
 * namespace's other skills hold ({@link interned}). Read once, in order.
 */
export function* decodePartsBatch(batch: PartsBatch): Generator<ReleasedParts | undefined> {
  const words = batch.words.map(interned);
  const { numbers, strings, rare } = batch;
  let at = 0;
  let text = 0;
  // Arrays made at their size, not grown by push: a grown array keeps room to spare in every skill held.
  const slugs = (count: number): string[] => {
    const list = new Array<string>(count);
    for (let i = 0; i < count; i++) list[i] = words[numbers[at++] ?? 0] ?? "";
    return list;
  };
  for (let file = 0; file < rare.length; file++) {
    const flags = numbers[at++] ?? NOT_PARSED;
    if (flags === NOT_PARSED) {
      yield undefined;
      continue;
    }
    const slug = words[numbers[at++] ?? 0] ?? "";
    const handle = words[numbers[at++] ?? 0] ?? "";
    const summaryStart = numbers[at++] ?? -1;
    const summaryEnd = numbers[at++] ?? -1;
    const frontmatterStart = numbers[at++] ?? -1;
    const frontmatterEnd = numbers[at++] ?? -1;
    const bodyStart = numbers[at++] ?? 0;
    const high = numbers[at++] ?? 0;
    const low = numbers[at++] ?? 0;
    const length = numbers[at++] ?? 0;
    const mentionCount = numbers[at++] ?? 0;
    const mentionsWritten = new Array<string>(mentionCount);
    const mentionsPacked = new Array<number>(mentionCount);
    for (let i = 0; i < mentionCount; i++) {
      mentionsWritten[i] = words[numbers[at++] ?? 0] ?? "";
      mentionsPacked[i] = numbers[at++] ?? 0;
    }
    const requirements = slugs(numbers[at++] ?? 0);
    const codeOnly = slugs(numbers[at++] ?? 0);
    const few = rare[file] ?? undefined;
    const title = strings[text++] ?? "";
    const summary = flags & HAS_SUMMARY ? (strings[text++] ?? "") : undefined;
    const lines = few?.lines ? [...few.lines] : (strings[text++] ?? "");
    yield {
      declaration: few?.declaration ?? TEXT_START,
      handle,
      slug,
      validHandle: (flags & VALID_HANDLE) !== 0,
      lines: { lines, length },
      title,
      summary,
      summaryStart,
      summaryEnd,
      frontmatterStart,
      frontmatterEnd,
      enabled: (flags & ENABLED) !== 0,
      advertised: (flags & ADVERTISED) !== 0,
      examples: few?.examples ?? [],
      nearMisses: few?.nearMisses ?? [],
      bodyStart,
      mentionsWritten,
      mentionsPacked,
      requirements,
      codeOnly,
      problems: few?.problems ?? [],
      declaredName: few?.declaredName,
      bodyFingerprint: high * TWO_TO_32 + (low >>> 0),
    };
  }
}
