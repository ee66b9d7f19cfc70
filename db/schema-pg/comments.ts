/** Comment threads and their mentions on PostgreSQL, declared once in db/schema/comments.ts, which documents them. */
import { commentTables } from "../schema/comments";
import { users } from "./auth";
import { pgKit } from "./columns";
import { trajectories } from "./core";

export const { comments, commentMentions } = commentTables(pgKit, { users, trajectories });
