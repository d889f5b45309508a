import { describe, expect, it } from 'vitest';
import { norwegianDate, norwegianUtcOffsetHours, norwegianYear } from '../../shared/platform/norway-time';

const tzDate = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Oslo', year: 'numeric', month: '2-digit', day: '2-digit' });
const tzParts = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Oslo', hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' });
const tzOffsetHours = (at: Date): number => {
  const parts = Object.fromEntries(tzParts.formatToParts(at).map((part) => [part.type, part.value]));
  const local = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute));
  return (local - Math.floor(at.getTime() / 60_000) * 60_000) / 3_600_000;
};

describe('the date in Norway without Intl', () => {
  it('agrees with the time zone database on every day from 1996 to 2060, either side of midnight in Norway', () => {
    const mismatches: string[] = [];
    // Midnight in Norway is 22:00 UTC in summer and 23:00 UTC in winter: the hours around both, and noon.
    for (let day = Date.UTC(1996, 0, 1); day < Date.UTC(2060, 0, 1); day += 86_400_000) {
      for (const hour of [0, 12, 21, 22, 23]) {
        for (const minute of [0, 59]) {
          const at = new Date(day + hour * 3_600_000 + minute * 60_000);
          if (norwegianDate(at) !== tzDate.format(at)) mismatches.push(at.toISOString());
        }
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('changes its offset on the minute the time zone database does, in spring and in autumn', () => {
    const mismatches: string[] = [];
    for (let year = 1996; year < 2060; year++) {
      for (const month of [2, 9]) {
        // The last Sunday of the month, 00:00-02:00 UTC by the minute: the change is at 01:00 UTC.
        const lastDay = new Date(Date.UTC(year, month + 1, 0));
        const sunday = Date.UTC(year, month, lastDay.getUTCDate() - lastDay.getUTCDay());
        for (let time = sunday; time <= sunday + 2 * 3_600_000; time += 60_000) {
          const at = new Date(time);
          if (norwegianUtcOffsetHours(at) !== tzOffsetHours(at)) mismatches.push(at.toISOString());
        }
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('turns the year at midnight in Norway, an hour before UTC does', () => {
    expect(norwegianYear(new Date('2026-12-31T22:59:59.999Z'))).toBe(2026);
    expect(norwegianYear(new Date('2026-12-31T23:00:00.000Z'))).toBe(2027);
    expect(norwegianDate(new Date('2026-06-30T21:59:59.999Z'))).toBe('2026-06-30');
    expect(norwegianDate(new Date('2026-06-30T22:00:00.000Z'))).toBe('2026-07-01');
  });

  it('refuses an invalid moment, as Intl does', () => {
    expect(() => norwegianDate(new Date(Number.NaN))).toThrow(RangeError);
    expect(() => tzDate.format(new Date(Number.NaN))).toThrow(RangeError);
  });
});
