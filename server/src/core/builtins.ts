import { parseDocument } from "yaml";
/** The three skills every new workspace can start from: the seed's built-ins, with the seed's texts. */
export const BUILTIN_SKILLS: readonly { readonly handle: string; readonly text: string }[] = [
  {
    handle: "fetch-file",
    text: `---
title: Fetch File
summary: Find one of the user's own files on any of their devices.
advertised: false
---
Find the file the user described.

First use @list-devices to learn which devices the user has. Then use @find-file on each device with a short
description of the file (its name, its type, words from its path) until you find it. Say which device it is on.
`,
  },
  {
    handle: "check-schedule",
    text: `---
title: Check Schedule
summary: Check the user's calendar — meetings, appointments, free/busy — for a specific day or a relative one like today, tomorrow, or this weekend.
examples:
  - "What's on my calendar tomorrow?"
  - "Am I free this weekend?"
  - "When is my dentist appointment next week?"
near-misses:
  - "What day is it today?"
  - "Find my passport scan"
---
Look up what's on the user's calendar.

Relative dates (today, tomorrow, this weekend, next week) depend on today's date, which you do NOT know on your own — so FIRST use @current-date to get today's date and work out the date range the user means. Then use @calendar to fetch the events in that range and summarize them briefly.
`,
  },
  {
    handle: "search-info",
    text: `---
title: Search Info
summary: The skill to use whenever you need to find some information the user asked for — it checks every place that information could live.
examples:
  - "What's my PAN number?"
  - "Find my passport scan"
  - "What is my sister's address?"
near-misses:
  - "What's on my calendar tomorrow?"
  - "Write a haiku about autumn"
---
Find the information the user asked for. Check every place it could live, in this order, and stop as soon as you have a clear answer.

1. FIRST use @check-notebook: the Notebook holds the facts about the user that matter most.
2. THEN use @fetch-file to look for a document that holds the answer (a scan, a statement, a note).
3. Only if both found nothing, use @grep-memory as a last resort over the full memory log.

Say where you found the answer. If nothing turned up, say so plainly — never guess.
`,
  },
];

/**
 * A string as a YAML value on one line: as written when YAML reads it back as this very string, otherwise
 * double-quoted (JSON's escapes are YAML's), so a title such as `Key: value`, `yes`, `100` or `#1` stays text.
 */
export function yamlString(value: string): string {
  if (value !== "" && value === value.trim()) {
    const document = parseDocument(`key: ${value}\n`, { uniqueKeys: false });
    if (document.errors.length === 0 && document.warnings.length === 0 && document.get("key") === value) return value;
  }
  return JSON.stringify(value);
}

/**
 * A new skill's file, from the New Skill template (and the "Create skill" quick fix). The summary starts as the
 * title (an `@` in it escaped: the summary's mentions are references), so two new skills are not "too alike" on the menu before their authors write them; the comment above
 * it says what a summary is for.
 */
export function skillTemplate(title: string, summary?: string): string {
  const oneLine = title.replace(/\s+/g, " ").trim();
  return `---
title: ${yamlString(oneLine)}
# The summary: when to use this skill, in one line. The planner's menu shows it.
summary: ${yamlString(summary ?? oneLine.replace(/@/g, "\\@"))}
---
Describe the steps in prose. Mention the tools and skills it needs with @, in the order to use them.
`;
}
