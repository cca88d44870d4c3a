/** A day range, both ends included, as YYYY-MM-DD. */
export interface DayRange {
  readonly start: string;
  readonly end: string;
}

/** What `current_date` answers. */
export interface CurrentDate {
  readonly today: string;
  readonly weekday: string;
  /** The local time, HH:MM. */
  readonly time: string;
  readonly timeZone: string;
  /** Weeks run Monday to Sunday (ISO 8601). */
  readonly ranges: Readonly<Record<string, DayRange>>;
}

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const;

/** A local calendar day; noon keeps day arithmetic clear of daylight-saving shifts. */
function day(year: number, month: number, date: number): Date {
  return new Date(year, month, date, 12);
}

function addDays(date: Date, days: number): Date {
  return day(date.getFullYear(), date.getMonth(), date.getDate() + days);
}

/** YYYY-MM-DD of a local date. */
export function isoDay(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** Parses YYYY-MM-DD into a local day, or undefined when it is not a real date. */
export function parseIsoDay(text: string): Date | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return undefined;
  const [year, month, date] = [Number(match[1]), Number(match[2]) - 1, Number(match[3])];
  const value = day(year, month, date);
  return value.getFullYear() === year && value.getMonth() === month && value.getDate() === date ? value : undefined;
}

function range(start: Date, end: Date): DayRange {
  return { start: isoDay(start), end: isoDay(end) };
}

/**
 * Today and the concrete ranges a request may mean, in local time. "This weekend" is the coming Saturday and
 * Sunday, or the current one while it lasts; "next weekend" is the one after it.
 */
export function currentDate(now: Date): CurrentDate {
  const today = day(now.getFullYear(), now.getMonth(), now.getDate());
  const weekday = today.getDay();
  const monday = addDays(today, -((weekday + 6) % 7));
  const saturday = weekday === 0 ? addDays(today, -1) : addDays(monday, 5);
  const monthStart = day(today.getFullYear(), today.getMonth(), 1);
  const nextMonthStart = day(today.getFullYear(), today.getMonth() + 1, 1);
  return {
    today: isoDay(today),
    weekday: WEEKDAYS[weekday] ?? "",
    time: `${String(now.getHours()).padStart(2, "0")}:${String(now.getMinutes()).padStart(2, "0")}`,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    ranges: {
      today: range(today, today),
      tomorrow: range(addDays(today, 1), addDays(today, 1)),
      yesterday: range(addDays(today, -1), addDays(today, -1)),
      "this week": range(monday, addDays(monday, 6)),
      "rest of this week": range(today, addDays(monday, 6)),
      "this weekend": range(saturday, addDays(saturday, 1)),
      "next week": range(addDays(monday, 7), addDays(monday, 13)),
      "next weekend": range(addDays(saturday, 7), addDays(saturday, 8)),
      "last week": range(addDays(monday, -7), addDays(monday, -1)),
      "next 7 days": range(today, addDays(today, 6)),
      "this month": range(monthStart, addDays(nextMonthStart, -1)),
      "next month": range(nextMonthStart, addDays(day(today.getFullYear(), today.getMonth() + 2, 1), -1)),
    },
  };
}
