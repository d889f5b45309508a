/**
 * The date and year in Norway, where the books are kept, without Intl: a process's first
 * Intl.DateTimeFormat costs about 12 ms of CPU (ICU loads its data), which every cold start whose
 * first request needs today's date in Norway would pay (npm run bench:cold-start).
 *
 * Europe/Oslo keeps the EU rule (since 1996): UTC+1, and UTC+2 from 01:00 UTC on the last Sunday
 * of March to 01:00 UTC on the last Sunday of October. test/unit/norway-time.test.ts checks each
 * day from 1996 to 2060 around midnight in Norway, and every minute around each change, against
 * the time zone database.
 */
const hourMs = 3_600_000;
const dayMs = 24 * hourMs;

/** 01:00 UTC on the last Sunday of a month (0-based). */
const lastSundayAt0100Utc = (year: number, month: number): number => {
  const lastDay = Date.UTC(year, month + 1, 0, 1);
  return lastDay - new Date(lastDay).getUTCDay() * dayMs;
};

/** Hours Norway is ahead of UTC at a moment: 2 in summer time, else 1. */
export const norwegianUtcOffsetHours = (at: Date): 1 | 2 => {
  const time = at.getTime();
  if (Number.isNaN(time)) throw new RangeError('Invalid time value');
  const year = at.getUTCFullYear();
  return time >= lastSundayAt0100Utc(year, 2) && time < lastSundayAt0100Utc(year, 9) ? 2 : 1;
};

/** The calendar date in Norway at a moment, YYYY-MM-DD. */
export const norwegianDate = (at: Date = new Date()): string => new Date(at.getTime() + norwegianUtcOffsetHours(at) * hourMs).toISOString().slice(0, 10);

/** The calendar year in Norway at a moment (accounting years are calendar years). */
export const norwegianYear = (at: Date = new Date()): number => Number(norwegianDate(at).slice(0, 4));
