// Only the list of QA campaigns shows a loading view: the review pages below /qa/<campaign> check the reviewer on
// the server before anything is sent, so a refused request answers 403 rather than a streamed page.
import { PageLoading } from "../../../_components/page-loading";

export default PageLoading;
