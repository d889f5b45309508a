import type { Principal } from './principal';

/** A system client reaches its organization and every descendant (spec: general rule 2). */
export const isWithinReach = (principal: Principal, organizationPath: string): boolean => {
  const own = principal.organizationPath;
  if (!own) return false;
  return organizationPath === own || organizationPath.startsWith(`${own}/`);
};
