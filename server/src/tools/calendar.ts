import * as path from "node:path";
import { isoDay, parseIsoDay } from "./dates.js";
import { ToolArgumentError } from "./types.js";
import { devicesOf, globToRegExp, matchCount, queryWords, readText, walkFiles } from "./workspace.js";

type Ical = (typeof import("ical.js"))["default"];
type IcalEvent = InstanceType<Ical["Event"]>;
type IcalTime = InstanceType<Ical["Time"]>;

/** One occurrence of an event, as `queryCalendar` answers it. */
export interface CalendarEvent {
  readonly title: string;
  /** YYYY-MM-DD for an all-day event, YYYY-MM-DDTHH:MM (local time) otherwise. */
  readonly start: string;
  readonly end: string;
  readonly allDay: boolean;
  readonly location?: string;
  readonly description?: string;
  /** The calendar file, as device/relative path. */
  readonly calendar: string;
}

/** What `queryCalendar` answers. */
export interface CalendarAnswer {
  readonly range: { readonly start: string; readonly end: string };
  readonly events: readonly CalendarEvent[];
  readonly calendarsRead: number;
  readonly note?: string;
}

/** At most this many days per query: a year is plenty for a question about a calendar. */
export const MAX_RANGE_DAYS = 366;
const MAX_EVENTS = 100;
const MAX_OCCURRENCES_PER_EVENT = 5_000;
const MAX_CALENDAR_FILES = 200;

let icalModule: Promise<Ical> | undefined;

function ical(): Promise<Ical> {
  // ical.js ships ES modules; this package is CommonJS, so it is imported dynamically.
  icalModule ??= import("ical.js").then((module) => module.default);
  return icalModule;
}

/**
 * Lists the events of the workspace's calendar files (`.ics`, parsed with ical.js) that overlap the days
 * `start`..`end` (both included, local time), recurring events expanded, optionally only those whose title,
 * place or notes contain one of the query's words.
 */
export async function queryCalendar(
  args: { readonly start: string; readonly end: string; readonly query?: string },
  folders: readonly string[],
  glob: string,
  signal?: AbortSignal,
): Promise<CalendarAnswer> {
  const first = parseIsoDay(args.start);
  const last = parseIsoDay(args.end);
  if (!first) throw new ToolArgumentError(`start must be a real date written YYYY-MM-DD; got ${JSON.stringify(args.start)}.`);
  if (!last) throw new ToolArgumentError(`end must be a real date written YYYY-MM-DD; got ${JSON.stringify(args.end)}.`);
  if (last < first) throw new ToolArgumentError(`end (${args.end}) is before start (${args.start}).`);
  const days = Math.round((last.getTime() - first.getTime()) / 86_400_000) + 1;
  if (days > MAX_RANGE_DAYS) throw new ToolArgumentError(`The range is ${days} days long; ask for at most ${MAX_RANGE_DAYS} days at a time.`);

  const rangeStart = new Date(first.getFullYear(), first.getMonth(), first.getDate());
  const rangeEnd = new Date(last.getFullYear(), last.getMonth(), last.getDate() + 1);
  const words = queryWords(args.query ?? "");
  const matcher = globToRegExp(glob);
  const ICAL = await ical();

  const events: CalendarEvent[] = [];
  let calendarsRead = 0;
  const problems: string[] = [];
  for (const device of devicesOf(folders)) {
    for (const file of await walkFiles(device.folder, signal)) {
      if (!matcher.test(file.relative) || calendarsRead >= MAX_CALENDAR_FILES) continue;
      if (signal?.aborted) return { range: { start: args.start, end: args.end }, events, calendarsRead, note: "Cancelled." };
      calendarsRead++;
      const label = `${device.id}/${file.relative}`;
      try {
        events.push(...occurrencesIn(ICAL, await readText(file.path), label, rangeStart, rangeEnd));
      } catch (error) {
        problems.push(`${label} could not be read (${error instanceof Error ? error.message : String(error)})`);
      }
    }
  }
  const matching = words.length === 0 ? events : events.filter((event) => matchCount(words, `${event.title} ${event.location ?? ""} ${event.description ?? ""}`) > 0);
  matching.sort((a, b) => a.start.localeCompare(b.start) || a.title.localeCompare(b.title));
  const notes: string[] = [];
  if (calendarsRead === 0) notes.push(`No calendar file matches ${glob} in the workspace folders (${folders.map((folder) => path.basename(folder)).join(", ")}).`);
  if (matching.length > MAX_EVENTS) notes.push(`Showing the first ${MAX_EVENTS} of ${matching.length} events: ask for a shorter range.`);
  notes.push(...problems);
  return {
    range: { start: args.start, end: args.end },
    events: matching.slice(0, MAX_EVENTS),
    calendarsRead,
    ...(notes.length > 0 ? { note: notes.join(" ") } : {}),
  };
}

function occurrencesIn(ICAL: Ical, text: string, label: string, rangeStart: Date, rangeEnd: Date): CalendarEvent[] {
  const root = new ICAL.Component(ICAL.parse(text));
  const calendars = root.name === "vcalendar" ? [root] : root.getAllSubcomponents("vcalendar");
  const found: CalendarEvent[] = [];
  for (const calendar of calendars) {
    for (const zone of calendar.getAllSubcomponents("vtimezone")) ICAL.TimezoneService.register(zone);
    const masters = new Map<string, IcalEvent>();
    const exceptions: IcalEvent[] = [];
    for (const component of calendar.getAllSubcomponents("vevent")) {
      const event = new ICAL.Event(component);
      if (event.isRecurrenceException()) exceptions.push(event);
      else masters.set(event.uid, event);
    }
    for (const exception of exceptions) {
      const master = masters.get(exception.uid);
      if (master) master.relateException(exception);
      else masters.set(`${exception.uid}#${exceptions.indexOf(exception)}`, exception);
    }
    for (const event of masters.values()) {
      if (!event.startDate) continue;
      if (!event.isRecurring()) {
        const occurrence = toOccurrence(event, event.startDate, event.endDate ?? event.startDate, label, rangeStart, rangeEnd);
        if (occurrence) found.push(occurrence);
        continue;
      }
      const iterator = event.iterator();
      for (let i = 0; i < MAX_OCCURRENCES_PER_EVENT; i++) {
        const next = iterator.next();
        if (!next || next.toJSDate() >= rangeEnd) break;
        const details = event.getOccurrenceDetails(next);
        const occurrence = toOccurrence(details.item, details.startDate, details.endDate, label, rangeStart, rangeEnd);
        if (occurrence) found.push(occurrence);
      }
    }
  }
  return found;
}

function toOccurrence(event: IcalEvent, start: IcalTime, end: IcalTime, label: string, rangeStart: Date, rangeEnd: Date): CalendarEvent | undefined {
  const startsAt = start.toJSDate();
  let endsAt = end.toJSDate();
  // A zero-length event still happens at its start.
  if (endsAt <= startsAt) endsAt = new Date(startsAt.getTime() + 1);
  if (startsAt >= rangeEnd || endsAt <= rangeStart) return undefined;
  const allDay = start.isDate;
  const text = (value: string | null | undefined) => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined);
  const location = text(event.location);
  const description = text(event.description);
  return {
    title: text(event.summary) ?? "(no title)",
    start: allDay ? isoDay(startsAt) : localMinute(startsAt),
    // An all-day event's DTEND is the day after its last day.
    end: allDay ? isoDay(new Date(endsAt.getTime() - 1)) : localMinute(endsAt),
    allDay,
    ...(location ? { location } : {}),
    ...(description ? { description: description.length > 200 ? `${description.slice(0, 199)}…` : description } : {}),
    calendar: label,
  };
}

function localMinute(date: Date): string {
  return `${isoDay(date)}T${String(date.getHours()).padStart(2, "0")}:${String(date.getMinutes()).padStart(2, "0")}`;
}
