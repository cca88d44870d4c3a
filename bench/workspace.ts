/**
 * The benchmark's workspaces and the plumbing both servers' runs share.
 *
 * `generateWorkspaces` writes two equivalent workspaces from one seeded model: skills (`<handle>.skill.md`, with
 * `@handle` mentions) and Markdown files (`<handle>.md`, with `[text](./handle.md)` links in the same places).
 * Same file count, same sizes, same graph, the same share of dangling references. Two hubs make the fan-out
 * operations measurable: `shared-lookup` is mentioned by 1,000 files (rename, references), `shared-format` by 100
 * (a change its dependents must show). One large file holds 2,000 mentions (semantic tokens).
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { promises as fs, readFileSync } from "node:fs";
import * as path from "node:path";
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { createProtocolConnection, StreamMessageReader, StreamMessageWriter, type ProtocolConnection } from "vscode-languageserver-protocol/node.js";
import { seededRandom } from "../test/fixtures/random.js";

/** Mentioned by this many files (or every other file in a smaller workspace): the rename and references target. */
export const RENAME_HUB = "shared-lookup";
export const RENAME_FANOUT = 1000;
/** Mentioned by this many files: the skill disabled (or the file deleted) to time the dependents' recheck. */
export const EDIT_HUB = "shared-format";
export const EDIT_FANOUT = 100;
/** The large file whose semantic tokens are timed. */
export const BIG_FILE = "big-index";
export const BIG_MENTIONS = 2000;
/** The share of references that name nothing. */
export const DANGLING_SHARE = 0.01;

export interface GeneratedWorkspace {
  readonly root: string;
  /** The skill workspace folder. */
  readonly skills: string;
  /** The equivalent Markdown workspace folder. */
  readonly markdown: string;
  /** The same skills as Agent Skills folders (`skills/<handle>/SKILL.md`, `/handle` references); written when asked. */
  readonly agentSkills: string | undefined;
  readonly count: number;
  readonly shape: WorkspaceShape;
  /** Every handle, in generation order (the hubs and the big file included). */
  readonly handles: readonly string[];
  /** Handles of the files that mention the rename hub / the edit hub. */
  readonly renameDependents: readonly string[];
  readonly editDependents: readonly string[];
  /** A small, ordinary skill to edit and complete in. */
  readonly plain: string;
  readonly totalMentions: number;
  readonly danglingMentions: number;
  readonly bytes: number;
  /** Each file's summary, in the order of `handles`. */
  readonly summaries: readonly string[];
}


const ADJECTIVES = ["quick", "daily", "deep", "local", "shared", "weekly", "smart", "plain", "safe", "exact", "broad", "short", "fresh", "quiet", "early", "final"];
const NOUNS = ["search", "summary", "review", "triage", "digest", "lookup", "report", "check", "draft", "planner", "reminder", "filter", "index", "notes", "brief", "audit"];
const WORDS = (
  "the a to of and in for with on when then first after before each your it is be that this from by as read find check write " +
  "list keep note ask user answer file date meeting trip inbox calendar notebook memory request step result short plain clear " +
  "summary detail source quote name time place order priority follow reply draft send open close"
).split(" ");

/**
 * The workspace's shape. `distinct`: summaries from a vocabulary of 4,000 invented words, so that few are alike,
 * and mentions spread uniformly. `realistic`: summaries in the phrasings of real menu entries, their words drawn
 * from a few hundred English words with a Zipf-like frequency (a few words in most summaries, most words rare),
 * handles made of the same words, and mentions that cluster (a skill mostly mentions skills of its own domain and
 * a few popular ones). `worst`: the realistic workspace whose summaries all come from 50 words, drawn uniformly,
 * so every term is common.
 */
export type WorkspaceShape = "distinct" | "realistic" | "worst";
export const WORKSPACE_SHAPES: readonly WorkspaceShape[] = ["distinct", "realistic", "worst"];

const VERBS = ["Finds", "Checks", "Drafts", "Lists", "Summarises", "Plans", "Sorts", "Tracks", "Compares", "Collects", "Reviews", "Books"];
function inventedVocabulary(rand: () => number, size: number): string[] {
  const consonants = "bcdfghklmnprstvz";
  const vowels = "aeiou";
  const words = new Set<string>();
  while (words.size < size) {
    let word = "";
    const syllables = 2 + Math.floor(rand() * 2);
    for (let k = 0; k < syllables; k++) word += (consonants[Math.floor(rand() * consonants.length)] ?? "b") + (vowels[Math.floor(rand() * vowels.length)] ?? "a");
    words.add(word);
  }
  return [...words];
}

function unique(words: readonly string[]): string[] {
  return [...new Set(words)];
}

/** The realistic shape's words, most frequent first within each list (the Zipf rank is the place in the list). */
const ACTIONS = unique(
  (
  "search check draft find plan sort track review summarise prepare book list compare collect remind answer fetch " +
  "schedule update clean archive tag merge export import translate rewrite estimate watch flag rank group file " +
  "label share sync backup rename convert validate monitor report forward"
).split(" "),
);
const SUBJECTS = unique(
  (
  "notes calendar email inbox files messages meetings tasks documents contacts reminders invoices photos trips " +
  "bookmarks receipts projects reports tickets orders bills events recipes articles papers slides sheets forms " +
  "notebook journal diary memos letters replies threads chats calls voicemails podcasts videos songs playlists " +
  "books loans subscriptions accounts passwords devices backups logs alerts incidents releases builds tests issues " +
  "commits branches reviews deploys servers metrics dashboards budgets expenses payments taxes salaries contracts " +
  "leases policies claims quotes proposals offers deals leads customers clients vendors partners teams people " +
  "friends family guests visitors students courses lessons exams grades homework classes schedules shifts " +
  "rotas holidays vacations flights hotels trains tickets visas maps routes places restaurants menus groceries " +
  "meals workouts runs sleep habits goals plants pets cars repairs parts tools packages shipments deliveries " +
  "returns warranties manuals guides sources quotes citations drafts outlines summaries agendas minutes decisions " +
  "risks plans ideas questions answers topics keywords tags labels folders archives snapshots versions changes " +
  "comments feedback surveys polls votes results figures charts tables records entries items lists"
).split(" "),
);
const QUALIFIERS = unique(
  (
  "recent upcoming overdue important unread shared local weekly daily monthly urgent open pending draft old new " +
  "public private personal team family travel work home school client project quarterly annual late early " +
  "missing duplicate broken long short large small exact rough final first last next relative"
).split(" "),
);

/** Phrasings of real menu entries; {a} an action, {s} a subject, {q} a qualifier. */
const PHRASINGS = [
  "{A} the user's {s} — {s}, {s}, {s} — for a {q} {s}",
  "{A} one of the user's {q} {s} on any of their {s} or {s}",
  "Prepare the user for {q} {s} — the {s}, the {s} and which {s} to bring",
  "Sort what is waiting for the user — {s}, {s}, {q} {s} — into {q}, {q} and {q}",
  "Keep track of the user's {s} and {a} them before the {q} {s}",
  "Turn {q} {s} like {s} into {q} {s}",
  "{A} a reply to {q} {s} about {s} and {s}",
  "Plan a {s} around the user's {s} — {q} {s}, {s} already made, {s} to pack",
  "{A} {s} a first {a} missed in the {q} {s}",
  "{A} {q} {s} in the user's {s} and {a} the {s} that need it",
];

/** Reserved names: the hubs, the built-in tools. */
const RESERVED = new Set(["shared-lookup", "shared-format", "big-index", "check-notebook", "find-file", "list-devices", "grep-memory", "current-date", "calendar"]);

/** Draws from a list with probability proportional to 1 / (rank + 1): Zipf's law with exponent 1. */
function zipfPicker(rand: () => number): <T>(list: readonly T[]) => T {
  const cumulative = new Map<number, Float64Array>();
  return <T>(list: readonly T[]): T => {
    let table = cumulative.get(list.length);
    if (!table) {
      table = new Float64Array(list.length);
      let sum = 0;
      for (let k = 0; k < list.length; k++) table[k] = sum += 1 / (k + 1);
      cumulative.set(list.length, table);
    }
    const target = rand() * (table[table.length - 1] ?? 0);
    let low = 0;
    let high = table.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((table[middle] ?? 0) < target) low = middle + 1;
      else high = middle;
    }
    return list[low] as T;
  };
}

/** What real summaries add after their main phrase: the cases they cover, when they apply. */
const CLAUSES = [
  ", for {q} {s} and {s}",
  ", when the {s} or the {s} changes",
  ", with the {q} {s} of each {s}",
  ", from {s}, {s} or {q} {s}",
  ", and {a} the {s} it finds",
  ", before any {q} {s}",
];

/** A summary in one of the phrasings with one or two clauses, each slot filled by `word` from its list. */
function phrasedSummary(rand: () => number, word: (list: readonly string[]) => string): string {
  let phrasing = PHRASINGS[Math.floor(rand() * PHRASINGS.length)] ?? "";
  const clauses = 1 + Math.floor(rand() * 2);
  for (let k = 0; k < clauses; k++) phrasing += CLAUSES[Math.floor(rand() * CLAUSES.length)] ?? "";
  return phrasing.replace(/\{([Aasq])\}/g, (_, slot: string) => {
    if (slot === "A") {
      const action = word(ACTIONS);
      return action.charAt(0).toUpperCase() + action.slice(1);
    }
    return word(slot === "a" ? ACTIONS : slot === "s" ? SUBJECTS : QUALIFIERS);
  });
}

function titleOf(handle: string): string {
  return handle
    .split("-")
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(" ");
}

export interface Model {
  readonly handles: string[];
  /** For each file, its references in order: a handle, or a dangling name. */
  readonly mentions: string[][];
  readonly sizes: number[];
  readonly summaries: string[];
  readonly summaryMention: (string | undefined)[];
}

/** How a shape draws handles, summaries and the targets of mentions. */
interface Drawing {
  readonly handles: string[];
  summary(i: number): string;
  /** The handle the i-th file mentions next. */
  target(i: number): string;
}

function distinctDrawing(rand: () => number, count: number): Drawing {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
  const handles: string[] = [RENAME_HUB, EDIT_HUB, BIG_FILE];
  for (let i = handles.length; i < count; i++) handles.push(`${pick(ADJECTIVES)}-${pick(NOUNS)}-${i.toString(36)}`);
  const vocab = inventedVocabulary(rand, 4000);
  return {
    handles,
    summary: () => `${pick(VERBS)} the ${pick(vocab)} ${pick(vocab)} for a ${pick(vocab)} ${pick(vocab)}`,
    target: () => handles[Math.floor(rand() * count)] ?? RENAME_HUB,
  };
}

/** Clustered mentions: most go to a skill of the same domain (the subject in its handle), some to popular skills. */
const SAME_DOMAIN_SHARE = 0.6;
const POPULAR_SHARE = 0.25;

function phrasedDrawing(rand: () => number, count: number, shape: "realistic" | "worst"): Drawing {
  const zipf = zipfPicker(rand);
  const handles: string[] = [RENAME_HUB, EDIT_HUB, BIG_FILE];
  const domainOf: number[] = [-1, -1, -1];
  const taken = new Set<string>(RESERVED);
  const domains = new Map<number, number[]>();
  for (let i = handles.length; i < count; i++) {
    const action = zipf(ACTIONS);
    const subject = zipf(SUBJECTS);
    let handle = `${action}-${subject}`;
    for (let attempt = 0; taken.has(handle) && attempt < 4; attempt++) handle = `${action}-${zipf(QUALIFIERS)}-${subject}`;
    for (let n = 2; taken.has(handle); n++) handle = `${action}-${subject}-${n}`;
    taken.add(handle);
    handles.push(handle);
    const domain = SUBJECTS.indexOf(subject);
    domainOf.push(domain);
    const members = domains.get(domain) ?? [];
    members.push(i);
    domains.set(domain, members);
  }
  // The worst case's 50 words: the most frequent actions, subjects and qualifiers, each drawn uniformly.
  const few = { actions: ACTIONS.slice(0, 10), subjects: SUBJECTS.slice(0, 30), qualifiers: QUALIFIERS.slice(0, 10) };
  const word =
    shape === "realistic"
      ? (list: readonly string[]) => zipf(list)
      : (list: readonly string[]) => {
          const from = list === ACTIONS ? few.actions : list === SUBJECTS ? few.subjects : few.qualifiers;
          return from[Math.floor(rand() * from.length)] ?? "";
        };
  const popular = Array.from({ length: Math.max(1, count - 3) }, (_, k) => k + 3);
  return {
    handles,
    summary: () => phrasedSummary(rand, word),
    target: (i) => {
      const draw = rand();
      const members = domains.get(domainOf[i] ?? -1);
      if (draw < SAME_DOMAIN_SHARE && members && members.length > 1) return handles[members[Math.floor(rand() * members.length)] ?? 3] ?? RENAME_HUB;
      if (draw < SAME_DOMAIN_SHARE + POPULAR_SHARE) return handles[zipf(popular)] ?? RENAME_HUB;
      return handles[Math.floor(rand() * count)] ?? RENAME_HUB;
    },
  };
}

export function buildModel(count: number, seed: number, shape: WorkspaceShape): Model {
  const rand = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
  const drawing = shape === "distinct" ? distinctDrawing(rand, count) : phrasedDrawing(rand, count, shape);
  const handles = drawing.handles;
  const mentions: string[][] = [];
  const sizes: number[] = [];
  const summaries: string[] = [];
  const summaryMention: (string | undefined)[] = [];
  let dangling = 0;
  for (let i = 0; i < count; i++) {
    const wanted = 3 + Math.floor(rand() * 6);
    const list: string[] = [];
    while (list.length < wanted) {
      if (rand() < DANGLING_SHARE) list.push(`missing-${pick(NOUNS)}-${(dangling++).toString(36)}`);
      else list.push(drawing.target(i));
    }
    // Some explicit two-skill cycles on top of the ones a random graph has.
    if (i % 50 === 10 && i + 1 < count) list[0] = handles[i + 1] ?? RENAME_HUB;
    if (i % 50 === 11) list[0] = handles[i - 1] ?? RENAME_HUB;
    mentions.push(list);
    sizes.push(500 + Math.floor(rand() * 2500));
    summaries.push(drawing.summary(i));
    summaryMention.push(rand() < 0.1 ? drawing.target(i) : undefined);
  }
  // The hubs: the first files after them mention them (replacing one random mention, so counts stay the same).
  const others = Array.from({ length: count }, (_, i) => i).filter((i) => i > 2);
  const renameSet = new Set(others.slice(0, RENAME_FANOUT));
  const editSet = new Set(others.slice(-EDIT_FANOUT));
  for (const i of renameSet) mentions[i]?.splice(1, 1, RENAME_HUB);
  for (const i of editSet) mentions[i]?.splice(2, 1, EDIT_HUB);
  // Neither hub mentions the other hub, so each dependent set is exactly the files above.
  for (const hub of [0, 1]) mentions[hub] = (mentions[hub] ?? []).map((target) => (target === RENAME_HUB || target === EDIT_HUB ? (handles[5] ?? target) : target));
  for (let i = 0; i < count; i++) {
    if (i > 2 && !renameSet.has(i)) mentions[i] = (mentions[i] ?? []).map((target) => (target === RENAME_HUB ? (handles[4] ?? target) : target));
    if (i > 2 && !editSet.has(i)) mentions[i] = (mentions[i] ?? []).map((target) => (target === EDIT_HUB ? (handles[4] ?? target) : target));
    if (summaryMention[i] === RENAME_HUB || summaryMention[i] === EDIT_HUB) summaryMention[i] = handles[4];
  }
  // The big file: many mentions, for semantic tokens.
  mentions[2] = Array.from({ length: BIG_MENTIONS }, (_, k) => handles[(k * 7919) % count] ?? RENAME_HUB).map((target) => (target === RENAME_HUB || target === EDIT_HUB ? (handles[4] ?? target) : target));
  summaryMention[0] = summaryMention[1] = summaryMention[2] = undefined;
  return { handles, mentions, sizes, summaries, summaryMention };
}

/** Prose with the references spread through it, about `size` characters long. */
function bodyOf(rand: () => number, size: number, references: readonly string[], reference: (target: string) => string): string {
  const pieces: string[] = [];
  let length = 0;
  const perGap = Math.max(8, Math.floor(size / 6 / (references.length + 1)));
  let next = 0;
  let sentence = 0;
  while (length < size || next < references.length) {
    let words = "";
    const wordCount = Math.min(perGap, 6 + Math.floor(rand() * 10));
    for (let w = 0; w < wordCount; w++) words += `${w === 0 ? "" : " "}${WORDS[Math.floor(rand() * WORDS.length)]}`;
    let line = words.charAt(0).toUpperCase() + words.slice(1);
    if (next < references.length && (length > (size * next) / references.length || length >= size)) line += ` ${reference(references[next++] ?? "")}`;
    line += ".";
    pieces.push(line);
    length += line.length + 1;
    if (++sentence % 4 === 0) {
      pieces.push("\n\n");
      length += 2;
    }
  }
  return pieces.join(" ").replace(/ \n\n /g, "\n\n").trim();
}

function skillText(model: Model, i: number, rand: () => number): string {
  const handle = model.handles[i] ?? "";
  const mention = model.summaryMention[i];
  const front = [`---`, `title: ${titleOf(handle)}`, `summary: ${model.summaries[i]}${mention ? ` with @${mention}` : ""}`];
  if (handle === EDIT_HUB) front.push("enabled: true");
  front.push("---");
  const size = i === 2 ? 0 : model.sizes[i] ?? 1000;
  const body = i === 2 ? bigBody(model.mentions[2] ?? [], (target) => `@${target}`) : bodyOf(rand, size - 120, model.mentions[i] ?? [], (target) => `@${target}`);
  return `${front.join("\n")}\n# ${titleOf(handle)}\n\n${body}\n`;
}

function markdownText(model: Model, i: number, rand: () => number): string {
  const handle = model.handles[i] ?? "";
  const mention = model.summaryMention[i];
  const link = (target: string) => `[${titleOf(target)}](./${target}.md)`;
  const size = i === 2 ? 0 : model.sizes[i] ?? 1000;
  const body = i === 2 ? bigBody(model.mentions[2] ?? [], link) : bodyOf(rand, size - 120, model.mentions[i] ?? [], link);
  return `# ${titleOf(handle)}\n\n${model.summaries[i]}${mention ? ` with ${link(mention)}` : ""}.\n\n${body}\n`;
}

/** The same skill as a SKILL.md: `name`, `description` for the summary, `/handle` for every reference. */
function agentSkillText(model: Model, i: number, rand: () => number): string {
  const handle = model.handles[i] ?? "";
  const mention = model.summaryMention[i];
  const front = ["---", `name: ${handle}`, `description: ${model.summaries[i]}${mention ? ` with /${mention}` : ""}`, "---"];
  const size = i === 2 ? 0 : model.sizes[i] ?? 1000;
  const body = i === 2 ? bigBody(model.mentions[2] ?? [], (target) => `/${target}`) : bodyOf(rand, size - 120, model.mentions[i] ?? [], (target) => `/${target}`);
  return `${front.join("\n")}\n# ${titleOf(handle)}\n\n${body}\n`;
}

function bigBody(targets: readonly string[], reference: (target: string) => string): string {
  return targets.map((target, k) => `${k + 1}. Step ${k + 1}: ask ${reference(target)} for the next part.`).join("\n");
}

async function writeAll(folder: string, files: readonly { name: string; text: string }[]): Promise<number> {
  await fs.mkdir(folder, { recursive: true });
  let bytes = 0;
  for (let i = 0; i < files.length; i += 256) {
    const slice = files.slice(i, i + 256);
    await Promise.all(slice.map((file) => fs.writeFile(path.join(folder, file.name), file.text)));
    for (const file of slice) bytes += Buffer.byteLength(file.text);
  }
  return bytes;
}

/**
 * Writes both workspaces of `count` files under `root` (skills/ and markdown/), and with `agentSkills` a third:
 * the same skills as Agent Skills folders (agent-skills/skills/<handle>/SKILL.md).
 */
export async function generateWorkspaces(root: string, count: number, seed = 20261202, shape: WorkspaceShape = "distinct", options: { readonly agentSkills?: boolean } = {}): Promise<GeneratedWorkspace> {
  if (count < 20) throw new Error("A workspace needs at least 20 files.");
  const model = buildModel(count, seed, shape);
  const skills = path.join(root, "skills");
  const markdown = path.join(root, "markdown");
  const skillRand = seededRandom(seed + 1);
  const markdownRand = seededRandom(seed + 1);
  const skillFiles = model.handles.map((handle, i) => ({ name: `${handle}.skill.md`, text: skillText(model, i, skillRand) }));
  const markdownFiles = model.handles.map((handle, i) => ({ name: `${handle}.md`, text: markdownText(model, i, markdownRand) }));
  const bytes = await writeAll(skills, skillFiles);
  await writeAll(markdown, markdownFiles);
  let agentSkills: string | undefined;
  if (options.agentSkills) {
    agentSkills = path.join(root, "agent-skills");
    const agentRand = seededRandom(seed + 1);
    const folders = path.join(agentSkills, "skills");
    const agentFiles = model.handles.map((handle, i) => ({ name: path.join(handle, "SKILL.md"), text: agentSkillText(model, i, agentRand) }));
    await Promise.all(model.handles.map((handle) => fs.mkdir(path.join(folders, handle), { recursive: true })));
    await writeAll(folders, agentFiles);
  }
  const dependentsOf = (hub: string) => model.handles.filter((_, i) => i !== 2 && (model.mentions[i] ?? []).includes(hub));
  let total = 0;
  let dangling = 0;
  for (let i = 0; i < count; i++) {
    const list = [...(model.mentions[i] ?? []), ...(model.summaryMention[i] ? [model.summaryMention[i] ?? ""] : [])];
    total += list.length;
    dangling += list.filter((target) => target.startsWith("missing-")).length;
  }
  // On the disk before anything is measured: left to the kernel, 100,000 files' pages were written back some
  // 30 s later, in the middle of the measurements that followed.
  if (process.platform !== "win32") spawnSync("sync", { stdio: "ignore" });
  return {
    root,
    skills,
    markdown,
    agentSkills,
    count,
    shape,
    handles: model.handles,
    renameDependents: dependentsOf(RENAME_HUB),
    editDependents: dependentsOf(EDIT_HUB),
    plain: model.handles[7] ?? "",
    totalMentions: total,
    danglingMentions: dangling,
    bytes,
    summaries: model.handles.map((_, i) => `${model.summaries[i] ?? ""}${model.summaryMention[i] ? ` with @${model.summaryMention[i]}` : ""}`),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Plumbing shared by the two servers' runs.

/** The cold start: spawn to every file's diagnostics. */
export interface ColdFigures {
  /** Spawn to every file's diagnostics in hand. */
  readonly ms: number;
  /** CPU time the server process used for it (user + system). */
  readonly cpuMs: number;
  /** Spawn to initialize answered. */
  readonly initializeMs: number;
  /** Spawn to the index built (ours) or every file opened (the peer's). */
  readonly readyMs: number;
  /** Files in the diagnostics report (ours leaves out the clean ones). */
  readonly files: number;
  /** Dangling references reported: unknown mentions (ours), broken file links (the peer's). */
  readonly dangling: number;
}

/** Editors open as the server starts: spawn to the diagnostics of every one of them. */
export interface OpenEditorsFigures {
  readonly ms: number;
  /** Dangling references the servers reported in those files, and how many their texts hold. */
  readonly dangling: number;
  readonly expected: number;
}

/** The files a restored window has open: 50 ordinary ones, the same for both servers. */
export function openEditorHandles(workspace: GeneratedWorkspace): string[] {
  return workspace.handles.slice(10, 60);
}

/**
 * One language server under test, as the run drives it. Every operation is one sample, so the run can alternate
 * the two servers operation by operation: on a loaded machine both then see the same load.
 */
export interface Subject {
  readonly server: ServerProcess;
  cold(): Promise<ColdFigures>;
  /** A one-character edit in a small file, then that file's pulled diagnostics. */
  edit(): Promise<number>;
  /** Only what the operations below need, for a server whose cold start timed out. */
  prepare?(): Promise<void>;
  /** Changes the file 100 others reference (or changes it back), then pulls theirs until all show it. */
  dependents(): Promise<number>;
  references(): Promise<{ ms: number; count: number }>;
  /** A rename started on a reference to the file 1,000 others reference. */
  rename(): Promise<{ ms: number; files: number; bytes: number }>;
  /** The edit for renaming that file in the file explorer. */
  fileRename(): Promise<{ ms: number; files: number }>;
  stop(): Promise<void>;
}

/** What each server's operations measured, sample by sample. */
export interface ServerFigures {
  cold?: ColdFigures;
  /** Set when the cold start did not finish within this many ms (the operations then ran on a fresh process). */
  coldTimeoutMs?: number;
  editMs: number[];
  dependentsMs: number[];
  referencesMs: number[];
  references: number;
  renameMs: number[];
  renameFiles: number;
  /** The rename's answer as JSON, in bytes: what the pipe carries and the client parses. */
  renameBytes: number;
  fileRenameMs: number[];
  fileRenameFiles: number;
  /** Resident memory right after the cold start; at the end, and the peak (VmHWM). */
  rssAfterIndexMb: number;
  rssMb: number;
  peakMb: number;
  /** Why the server stopped being measured (a timeout, an error). */
  failure?: string;
}

export function emptyFigures(): ServerFigures {
  return { editMs: [], dependentsMs: [], referencesMs: [], references: 0, renameMs: [], renameFiles: 0, renameBytes: 0, fileRenameMs: [], fileRenameFiles: 0, rssAfterIndexMb: Number.NaN, rssMb: Number.NaN, peakMb: Number.NaN };
}

/** Counts the files a workspace edit changes the text of. */
export function editedFiles(edit: { documentChanges?: readonly object[]; changes?: Record<string, unknown> } | null | undefined): number {
  const uris = new Set<string>();
  for (const change of edit?.documentChanges ?? []) if ("textDocument" in change) uris.add((change as { textDocument: { uri: string } }).textDocument.uri);
  for (const uri of Object.keys(edit?.changes ?? {})) uris.add(uri);
  return uris.size;
}

/** Line and character of an offset (UTF-16, `\n` line breaks). */
export function positionAt(text: string, offset: number): { line: number; character: number } {
  let line = 0;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, character: offset - lineStart };
}

/** A language server process with a protocol connection over its stdio. */
export interface ServerProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly connection: ProtocolConnection;
  /** performance.now() just before the spawn. */
  readonly spawnedAt: number;
}

export function spawnServer(command: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): ServerProcess {
  const spawnedAt = performance.now();
  const child = spawn(command, args, { stdio: "pipe", env });
  child.stderr.on("data", () => undefined);
  // A server stopped while work was still being sent to it (a timed-out peer): the writes fail, quietly.
  child.stdin.on("error", () => undefined);
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  return { child, connection, spawnedAt };
}

/** Shuts a server down politely, and kills it when it does not go within the bound. */
export async function stopServer(server: ServerProcess, timeoutMs = 5000): Promise<void> {
  if (server.child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => server.child.once("exit", () => resolve()));
  const timer = setTimeout(() => server.child.kill("SIGKILL"), timeoutMs);
  try {
    await Promise.race([server.connection.sendRequest("shutdown"), new Promise((resolve) => setTimeout(resolve, timeoutMs))]);
    await server.connection.sendNotification("exit");
  } catch {
    server.child.kill("SIGKILL");
  }
  await exited;
  clearTimeout(timer);
  server.connection.dispose();
}

/** Resident and peak resident memory of a process, in MB (Linux `/proc/<pid>/status`). */
export function memoryOf(pid: number | undefined): { rssMb: number; peakMb: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? Number.NaN);
    return { rssMb: kb("VmRSS") / 1024, peakMb: kb("VmHWM") / 1024 };
  } catch {
    return { rssMb: Number.NaN, peakMb: Number.NaN };
  }
}

/** CPU time a process has used so far (user + system), in ms: less sensitive to a loaded machine than wall time. */
export function cpuTimeOf(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields 14 and 15 of stat (utime, stime), counted after the command name: indexes 11 and 12 here.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}

/** Linux's USER_HZ: 100 on every architecture Node runs on. */
const CLOCK_TICKS = 100;

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export const median = (values: readonly number[]): number => percentile(values, 50);

/** Times an async step in milliseconds. */
export async function timed<T>(step: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await step();
  return { ms: performance.now() - started, value };
}

/** Resolves with the step's value, or rejects after the bound: a slow peer must not stall the whole run. */
export async function within<T>(ms: number, what: string, step: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  // Past the bound the step is abandoned: its later failure (its server stopped under it) is nobody's concern.
  step.catch(() => undefined);
  try {
    return await Promise.race([step, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Timeout(what, ms)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

export class Timeout extends Error {
  constructor(
    readonly what: string,
    readonly ms: number,
  ) {
    super(`${what} took longer than ${ms / 1000} s`);
  }
}

/**
 * Waits until the last minute's load average is under 1, at most `maxMs`, and says how long it waited: a
 * comparison of figures of a few milliseconds, run after other work (the rest of the bench, or writing its own
 * workspaces), otherwise starts at a load of 1.5 to 3.5 on two cores.
 */
export async function settle(maxMs = 90_000): Promise<string> {
  const started = performance.now();
  while ((loadavg()[0] ?? 0) >= 1 && performance.now() - started < maxMs) await new Promise((resolve) => setTimeout(resolve, 1000));
  return `waited ${((performance.now() - started) / 1000).toFixed(0)} s for the load to settle (${loadavg().map((value) => value.toFixed(2)).join(" ")})`;
}
