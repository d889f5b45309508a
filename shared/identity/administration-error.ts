import { limits, textRuleProblem } from '../platform/schemas';

/** A refusal of an administration command (admin CLI, demo seed): printed as one line, exit 1. */
export class AdministrationError extends Error {}

/** A name as the API's schemas take one: trimmed, not blank, at most 200 characters, the text rule. */
export const checkedName = (value: string, what: string, max: number = limits.name): string => {
  const name = value.trim();
  if (!name) throw new AdministrationError(`The ${what} name must not be blank`);
  if (name.length > max) throw new AdministrationError(`The ${what} name must be at most ${max} characters, not ${name.length}`);
  const problem = textRuleProblem(name);
  if (problem) throw new AdministrationError(`The ${what} name ${problem}`);
  return name;
};
