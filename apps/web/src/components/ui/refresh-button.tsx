import { Button } from "./button";
import { RefreshIcon } from "./icons";

/**
 * A page's Refresh: disabled while its data is being fetched, and spinning only while data
 * already on screen is being refreshed. While a page first loads, its loading blocks say so; a
 * spinner there too only kept the browser drawing frames as fast as it could on a busy machine.
 */
export function RefreshButton({
  fetching,
  shown,
  onClick,
}: {
  /** Some of the page's data is being fetched. */
  fetching: boolean;
  /** The page shows data already (a refresh, not the first load). */
  shown: boolean;
  onClick: () => void;
}) {
  return (
    <Button onClick={onClick} disabled={fetching}>
      <RefreshIcon className={`size-4 ${fetching && shown ? "motion-safe:animate-spin" : ""}`} />
      Refresh
    </Button>
  );
}
