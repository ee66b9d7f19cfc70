import Link from "next/link";
import { ErrorPanel } from "../_components/ui";

export default function TrajectoryNotFound() {
  return (
    <ErrorPanel title="Trajectory not found" message="No trajectory has this id. It may have been deleted, or the link is wrong.">
      <Link href="/trajectories" className="btn">
        ← All trajectories
      </Link>
    </ErrorPanel>
  );
}
