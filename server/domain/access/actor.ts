/**
 * Who is acting, and the role ladder: admin ⊇ researcher ⊇ annotator for everything except labelling itself,
 * which depends on being an annotator of the campaign, not on the role.
 */
import type { Role } from "../../../db/schema/index";
import { AppError } from "../../errors";

export interface Actor {
  userId: string;
  name: string;
  role: Role;
}

const RANK: Record<Role, number> = { annotator: 0, researcher: 1, admin: 2 };

export function hasRole(actor: Pick<Actor, "role">, atLeast: Role): boolean {
  return RANK[actor.role] >= RANK[atLeast];
}

export function requireRole(actor: Pick<Actor, "role">, atLeast: Role, doing: string): void {
  if (!hasRole(actor, atLeast)) throw new AppError("FORBIDDEN", `Only ${atLeast === "admin" ? "admins" : "researchers and admins"} can ${doing}`);
}
