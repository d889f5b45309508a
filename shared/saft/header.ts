import { limits, textRuleProblem } from '../platform/schemas';
import { field, SaftFileError, type Fields } from './parser';

/**
 * Header fields the report shows: the most characters either SAF-T version allows there (more
 * refuses the file), and the report's limit (a longer valid value is shown clipped). Selection
 * fields are integers and dates, unbounded in the XSD: 100 characters are far beyond them.
 */
export const headerFields: Record<string, { max: number; shown: number }> = {
  AuditFileVersion: { max: 9, shown: limits.code },
  SoftwareCompanyName: { max: 70, shown: limits.name },
  SoftwareID: { max: 256, shown: limits.name },
  SoftwareVersion: { max: 18, shown: limits.code },
  'Company/Name': { max: 256, shown: limits.name },
  'Company/RegistrationNumber': { max: 35, shown: limits.code },
  'SelectionCriteria/PeriodStart': { max: limits.code, shown: limits.code },
  'SelectionCriteria/PeriodStartYear': { max: limits.code, shown: limits.code },
  'SelectionCriteria/PeriodEnd': { max: limits.code, shown: limits.code },
  'SelectionCriteria/PeriodEndYear': { max: limits.code, shown: limits.code },
  'SelectionCriteria/SelectionStartDate': { max: limits.code, shown: limits.code },
  'SelectionCriteria/SelectionEndDate': { max: limits.code, shown: limits.code },
};

/**
 * Refuses a header the report could not show: a field longer than SAF-T allows, or with a character
 * the text rule refuses (SaftFileError naming it). The start of an import checks it too.
 */
export const checkHeader = (fields: Fields): void => {
  for (const [path, { max }] of Object.entries(headerFields)) {
    const value = field(fields, path);
    if (value === undefined) continue;
    if (value.length > max) throw new SaftFileError('not_saft', `Header/${path} is ${value.length} characters long; SAF-T allows at most ${max}.`);
    const problem = textRuleProblem(value);
    if (problem) throw new SaftFileError('not_saft', `Header/${path} ${problem}.`);
  }
};
