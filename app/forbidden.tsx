import Link from "next/link";
import { hasRole } from "@/server/domain/access/actor";
import { ErrorPanel } from "./_components/ui";
import { currentUser } from "./_lib/session";

/**
 * What `forbidden()` renders (HTTP 403): a page or record the signed-in user's role may not open. Annotators
 * are pointed back to their queues, the only place their work happens.
 */
export default async function Forbidden() {
  const user = await currentUser();
  const researcher = user ? hasRole(user, "researcher") : false;
  return (
    <div data-testid="forbidden">
      <ErrorPanel
        title="You do not have access to this page"
        message={
          researcher
            ? "This page is for admins. Ask an admin if you need it."
            : "This page is for researchers and admins. As an annotator you see the trajectories of your labelling campaigns under Annotate."
        }
      >
        <Link href={researcher ? "/" : "/annotate"} className="btn">
          {researcher ? "Go to the overview" : "Go to your labelling queues"}
        </Link>
      </ErrorPanel>
    </div>
  );
}
