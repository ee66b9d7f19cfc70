import Link from "next/link";
import { ErrorPanel } from "./_components/ui";

export default function NotFound() {
  return (
    <ErrorPanel title="Page not found" message="Nothing lives at this address.">
      <Link href="/trajectories" className="btn">
        Go to trajectories
      </Link>
    </ErrorPanel>
  );
}
