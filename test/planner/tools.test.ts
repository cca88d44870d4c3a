// The six built-in tools over the fixture workspace, argument checking, and declared tools.
process.env.TZ = "UTC";

import assert from "node:assert/strict";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { BUILTIN_TOOLS, type DeclaredTool, type ToolSpec } from "../../server/src/core/index.js";
import { uriFromPath } from "../../server/src/node/workspaceFiles.js";
import { currentDate, createWorkspaceTools, globToRegExp, type ToolOutcome } from "../../server/src/tools/index.js";
import { DATA_FOLDERS, fixtureTools, FIXTURE_NOW, tempDir } from "./helpers.js";

const tool = (name: string): ToolSpec => {
  const found = BUILTIN_TOOLS.find((candidate) => candidate.name === name);
  assert.ok(found, name);
  return found;
};

function result<T>(outcome: ToolOutcome): T {
  assert.equal(outcome.ok, true, outcome.ok ? "" : outcome.error);
  return (outcome as { result: T }).result;
}

function failure(outcome: ToolOutcome): { kind: string; error: string } {
  assert.equal(outcome.ok, false, "expected a failure");
  return outcome as { kind: string; error: string };
}

const tools = fixtureTools();

describe("current_date", () => {
  test("today and concrete ranges from the injected clock, weeks Monday to Sunday", async () => {
    const date = result<ReturnType<typeof currentDate>>(await tools.run(tool("current_date"), {}));
    assert.equal(date.today, "2026-12-02");
    assert.equal(date.weekday, "Wednesday");
    assert.deepEqual(date.ranges.tomorrow, { start: "2026-12-03", end: "2026-12-03" });
    assert.deepEqual(date.ranges["this week"], { start: "2026-11-30", end: "2026-12-06" });
    assert.deepEqual(date.ranges["this weekend"], { start: "2026-12-05", end: "2026-12-06" });
    assert.deepEqual(date.ranges["next week"], { start: "2026-12-07", end: "2026-12-13" });
    assert.deepEqual(date.ranges["next month"], { start: "2027-01-01", end: "2027-01-31" });
  });

  test("on a Sunday this weekend is the current one; across a year's end the ranges carry over", () => {
    const sunday = currentDate(new Date(2026, 11, 6, 9));
    assert.deepEqual(sunday.ranges["this weekend"], { start: "2026-12-05", end: "2026-12-06" });
    assert.deepEqual(sunday.ranges["this week"], { start: "2026-11-30", end: "2026-12-06" });
    const newYearsEve = currentDate(new Date(2026, 11, 31, 23, 59));
    assert.deepEqual(newYearsEve.ranges.tomorrow, { start: "2027-01-01", end: "2027-01-01" });
    assert.deepEqual(newYearsEve.ranges["this month"], { start: "2026-12-01", end: "2026-12-31" });
  });

  test("an argument it does not take is refused", async () => {
    const { kind, error } = failure(await tools.run(tool("current_date"), { day: "today" }));
    assert.equal(kind, "invalid-arguments");
    assert.match(error, /no argument "day"/);
  });
});

describe("queryCalendar", () => {
  interface Event {
    title: string;
    start: string;
    end: string;
    allDay: boolean;
    calendar: string;
  }
  const query = async (args: object) => result<{ events: Event[]; calendarsRead: number }>(await tools.run(tool("queryCalendar"), args));

  test("events of both devices' .ics files in a range: recurrences expanded, a moved and a cancelled one honoured", async () => {
    const { events, calendarsRead } = await query({ start: "2026-12-01", end: "2026-12-14" });
    assert.equal(calendarsRead, 2);
    assert.deepEqual(
      events.map((event) => `${event.start} ${event.title}`),
      [
        "2026-12-03T15:00 Design review",
        "2026-12-04T18:00 Yoga (moved to Friday)",
        "2026-12-05T08:00 Plumber visit",
        "2026-12-05T11:00 Call with Mum",
        "2026-12-07T10:00 1:1 with Sam",
        "2026-12-08T09:30 Dentist check-up",
        "2026-12-12 Weekend in Lisbon",
        "2026-12-14T10:00 1:1 with Sam",
      ],
    );
    const lisbon = events.find((event) => event.title === "Weekend in Lisbon");
    assert.deepEqual(lisbon && { end: lisbon.end, allDay: lisbon.allDay, calendar: lisbon.calendar }, { end: "2026-12-13", allDay: true, calendar: "home/calendar/personal.ics" });
  });

  test("a time in a zone the file defines is converted; a query keeps matching events only", async () => {
    const { events } = await query({ start: "2026-12-05", end: "2026-12-05", query: "plumber" });
    assert.deepEqual(events.map((event) => [event.title, event.start, event.end]), [["Plumber visit", "2026-12-05T08:00", "2026-12-05T10:00"]]);
  });

  test("an all-day event without an end is one day; an event that ends before the range is left out", async () => {
    const { events } = await query({ start: "2026-12-16", end: "2026-12-16" });
    assert.deepEqual(events.map((event) => [event.title, event.start, event.end]), [["Team offsite", "2026-12-16", "2026-12-16"]]);
  });

  test("wrong dates are answered in words", async () => {
    assert.match(failure(await tools.run(tool("queryCalendar"), { start: "2026-12-05", end: "2026-12-01" })).error, /before start/);
    assert.match(failure(await tools.run(tool("queryCalendar"), { start: "2026-02-30", end: "2026-03-01" })).error, /real date/);
    assert.match(failure(await tools.run(tool("queryCalendar"), { start: "2026-01-01", end: "2027-06-01" })).error, /at most 366 days/);
    assert.match(failure(await tools.run(tool("queryCalendar"), { start: "tomorrow" })).error, /needs the argument "end"/);
    assert.match(failure(await tools.run(tool("queryCalendar"), { start: 20261201, end: "2026-12-02" })).error, /must be a string; got integer/);
  });

  test("no calendar file: an empty answer that says so", async () => {
    const { dir, cleanup } = await tempDir("calendar-");
    try {
      const outcome = await createWorkspaceTools({ folders: [dir] }).run(tool("queryCalendar"), { start: "2026-12-01", end: "2026-12-02" });
      const answer = result<{ events: Event[]; note: string }>(outcome);
      assert.deepEqual(answer.events, []);
      assert.match(answer.note, /No calendar file matches \*\*\/\*\.ics/);
    } finally {
      await cleanup();
    }
  });
});

describe("list_devices and find_file", () => {
  test("each workspace folder is a device", async () => {
    assert.deepEqual(result(await tools.run(tool("list_devices"), {})), { devices: [{ id: "home", name: "home" }, { id: "laptop", name: "laptop" }] });
  });

  test("finds a file by words from its name or path, on every device or on one", async () => {
    const passport = result<{ files: { device: string; path: string }[] }>(await tools.run(tool("find_file"), { description: "passport scan" }));
    assert.deepEqual(passport.files.map((file) => `${file.device}:${file.path}`), ["home:documents/passport-scan.pdf"]);
    const budget = result<{ files: { device: string; path: string }[] }>(await tools.run(tool("find_file"), { description: "budget spreadsheet", device: "laptop" }));
    assert.deepEqual(budget.files.map((file) => `${file.device}:${file.path}`), ["laptop:projects/budget-2026.csv"]);
    const none = result<{ files: unknown[]; note: string }>(await tools.run(tool("find_file"), { description: "budget", device: "home" }));
    assert.deepEqual(none.files, []);
    assert.match(none.note, /No file on home/);
  });

  test("an unknown device is answered with the devices there are", async () => {
    const { kind, error } = failure(await tools.run(tool("find_file"), { description: "budget", device: "phone" }));
    assert.equal(kind, "invalid-arguments");
    assert.match(error, /no device "phone".*home, laptop/);
  });
});

describe("check_notebook and grep_memory", () => {
  test("the notebook's entries that hold the query's words, best first, with their section", async () => {
    const answer = result<{ entries: { section: string; text: string }[] }>(await tools.run(tool("check_notebook"), { query: "PAN number" }));
    assert.deepEqual(answer.entries[0], { section: "Notebook › Identity", text: "PAN number: ABCPE1234F", line: 6 });
    const sister = result<{ entries: { text: string }[] }>(await tools.run(tool("check_notebook"), { query: "my sister's address" }));
    assert.deepEqual(sister.entries.map((entry) => entry.text), ["Sister: Priya Raman, 14 Rose Lane, Pune 411001"]);
    const nothing = result<{ entries: unknown[]; note: string }>(await tools.run(tool("check_notebook"), { query: "shoe size" }));
    assert.deepEqual(nothing.entries, []);
    assert.match(nothing.note, /nothing about "shoe" or "size"/);
  });

  test("the memory log by regular expression, plain words as a fallback, a dangerous pattern as text", async () => {
    const dentist = result<{ matches: { line: number; text: string }[] }>(await tools.run(tool("grep_memory"), { pattern: "dentist|plumber" }));
    assert.deepEqual(dentist.matches.map((match) => match.line), [1, 3]);
    const words = result<{ matches: { line: number }[]; note: string }>(await tools.run(tool("grep_memory"), { pattern: "Sam budget deadline" }));
    assert.deepEqual(words.matches.map((match) => match.line), [2]);
    assert.match(words.note, /some of its words/);
    const risky = result<{ matches: unknown[]; note: string }>(await tools.run(tool("grep_memory"), { pattern: "(a+)+$" }));
    assert.match(risky.note, /searched as plain text/);
  });

  test("a missing notebook or memory log is said plainly; the location is an option", async () => {
    const elsewhere = createWorkspaceTools({ folders: DATA_FOLDERS, notebookFile: "missing.md", memoryFile: "nowhere.log", now: FIXTURE_NOW });
    assert.match(result<{ note: string }>(await elsewhere.run(tool("check_notebook"), { query: "PAN" })).note, /no missing\.md in the workspace folders/);
    assert.match(result<{ note: string }>(await elsewhere.run(tool("grep_memory"), { pattern: "PAN" })).note, /no nowhere\.log/);
    const absolute = createWorkspaceTools({ folders: [], notebookFile: path.join(DATA_FOLDERS[0] ?? "", "notebook.md") });
    assert.equal(result<{ entries: unknown[] }>(await absolute.run(tool("check_notebook"), { query: "PAN" })).entries.length > 0, true);
  });

  test("a string past its maxLength is refused", async () => {
    assert.match(failure(await tools.run(tool("check_notebook"), { query: "x".repeat(201) })).error, /at most 200/);
  });
});

describe("tools declared in skills.json", () => {
  let dir = "";
  let cleanup = async () => undefined as void;
  let workspace = "";
  let outside = "";
  const declared = (slug: string, implementation?: string): DeclaredTool => ({
    slug,
    name: slug.replace(/-/g, "_"),
    title: slug,
    blurb: "A declared tool.",
    parameters: { type: "object", properties: { to: { type: "string" } }, required: ["to"] },
    advertiseInMenu: false,
    origin: { kind: "config", uri: uriFromPath(path.join(workspace, "skills.json")), range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } },
    implementation,
  });

  before(async () => {
    ({ dir, cleanup } = await tempDir("declared-"));
    workspace = path.join(dir, "workspace");
    outside = path.join(dir, "outside");
    await mkdir(path.join(workspace, "tools"), { recursive: true });
    await mkdir(outside, { recursive: true });
    await writeFile(path.join(workspace, "tools/send.mjs"), "export async function run(args, context) { return { sent: args.to, folders: context.folders.length }; }\n");
    await writeFile(path.join(outside, "evil.mjs"), "export function run() { throw new Error('must never run'); }\n");
    await symlink(path.join(outside, "evil.mjs"), path.join(workspace, "tools/link.mjs"));
  });
  after(() => cleanup());

  test("without an implementation: said plainly", async () => {
    const { kind, error } = failure(await createWorkspaceTools({ folders: [workspace] }).run(declared("send-message"), { to: "Priya" }));
    assert.equal(kind, "unimplemented");
    assert.equal(error, "@send-message is declared but has no implementation in this workspace, so send_message cannot run: nothing was done.");
  });

  test("an implementation outside the workspace folders is refused, through ../ or a symbolic link", async () => {
    const runner = createWorkspaceTools({ folders: [workspace], allowWorkspaceCode: true });
    for (const implementation of ["../outside/evil.mjs", "tools/link.mjs", path.join(outside, "evil.mjs")]) {
      const { kind, error } = failure(await runner.run(declared("send-message", implementation), { to: "Priya" }));
      assert.equal(kind, "refused", implementation);
      assert.match(error, /outside the workspace folders/);
    }
  });

  test("an implementation inside runs only when workspace code is allowed; its arguments are checked first", async () => {
    const tool = declared("send-message", "tools/send.mjs");
    assert.match(failure(await createWorkspaceTools({ folders: [workspace] }).run(tool, { to: "Priya" })).error, /running the workspace's code is off/);
    const trusted = createWorkspaceTools({ folders: [workspace], allowWorkspaceCode: true });
    assert.deepEqual(result(await trusted.run(tool, { to: "Priya" })), { sent: "Priya", folders: 1 });
    assert.match(failure(await trusted.run(tool, {})).error, /needs the argument "to"/);
  });
});

test("globs: ** crosses folders, * does not", () => {
  assert.equal(globToRegExp("**/*.ics").test("a/b/c.ics"), true);
  assert.equal(globToRegExp("**/*.ics").test("c.ics"), true);
  assert.equal(globToRegExp("*.ics").test("a/c.ics"), false);
  assert.equal(globToRegExp("calendars/*.{ics,ical}").test("calendars/x.ical"), true);
});
