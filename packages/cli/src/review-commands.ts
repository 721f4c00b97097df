/**
 * `switchyard review ...`: review requests, for teams whose publishes wait for an admin. A member
 * requests (the draft as `switchyard diff` shows it now), an admin approves (publishes it) or
 * rejects, the requester may withdraw.
 */
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { type ReviewRequest, ReviewState } from "@switchyard/proto/switchyard/v1/config_pb";
import { CliError, type ConfigClient, formatIssue, type RolloutClient } from "./client.js";
import { changeLines, type Output, summarizeChanges, table } from "./output.js";
import { pinnedDraft } from "./publish-commands.js";
import { printStartedRollouts } from "./publish-rollout.js";

const STATE_NAMES: Record<ReviewState, string> = {
  [ReviewState.UNSPECIFIED]: "-",
  [ReviewState.OPEN]: "open",
  [ReviewState.APPROVED]: "approved",
  [ReviewState.REJECTED]: "rejected",
  [ReviewState.WITHDRAWN]: "withdrawn",
};
const STATES = new Map(
  Object.entries(STATE_NAMES)
    .filter(([state]) => Number(state) !== ReviewState.UNSPECIFIED)
    .map(([state, name]) => [name, Number(state) as ReviewState]),
);

function reviewIdArg(text: string): bigint {
  const id = text.trim().replace(/^#/, "");
  if (!/^[1-9][0-9]*$/.test(id))
    throw new CliError(`"${text}" is not a review id: use the number switchyard review list shows`);
  return BigInt(id);
}

function stateOf(request: ReviewRequest): string {
  const state = STATE_NAMES[request.state];
  if (request.state === ReviewState.OPEN && !request.current) return "open (out of date)";
  if (request.state === ReviewState.APPROVED)
    return `approved: version ${request.publishedVersion}`;
  return state;
}

function when(request: ReviewRequest, which: "createTime" | "decideTime"): string {
  const time = request[which];
  return time ? timestampDate(time).toISOString().replace("T", " ").slice(0, 19) : "";
}

export async function reviewRequest(
  client: ConfigClient,
  output: Output,
  options: { message: string },
): Promise<void> {
  const request = await client.requestReview(await pinnedDraft(client, "review", options.message));
  output.out(
    `requested review #${request.id} of ${summarizeChanges(request.changes)} on version ${request.baseVersion}:\n` +
      `${changeLines(request.changes)}An admin approves it with: switchyard review approve ${request.id}\n`,
  );
}

export async function reviewList(
  client: ConfigClient,
  output: Output,
  options: { state?: string; limit?: string },
): Promise<void> {
  const names = options.state === undefined ? ["open"] : options.state.split(",");
  const states =
    names.length === 1 && names[0] === "all"
      ? []
      : names.map((name) => {
          const state = STATES.get(name.trim().toLowerCase());
          if (state === undefined)
            throw new CliError(
              `--state ${JSON.stringify(name)}: use ${[...STATES.keys()].join(", ")} or all`,
            );
          return state;
        });
  const limit = options.limit === undefined ? 20 : Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1)
    throw new CliError(`--limit must be a positive number, got "${options.limit}"`);
  const { requests } = await client.listReviewRequests({ states, limit });
  if (requests.length === 0) {
    output.out(options.state === undefined ? "no open review requests\n" : "no review requests\n");
    return;
  }
  output.out(
    table(
      ["ID", "STATE", "REQUESTED (UTC)", "BY", "TEAM", "CHANGES", "MESSAGE"],
      requests.map((r) => [
        String(r.id),
        stateOf(r),
        when(r, "createTime"),
        r.requester,
        r.team || "-",
        summarizeChanges(r.changes),
        r.message,
      ]),
    ),
  );
}

export async function reviewShow(
  client: ConfigClient,
  output: Output,
  idText: string,
): Promise<void> {
  const r = await client.getReviewRequest({ id: reviewIdArg(idText) });
  const lines = [
    `review #${r.id}: ${stateOf(r)}`,
    `requested by ${r.requester}${r.team ? ` (team ${r.team})` : ""} at ${when(r, "createTime")} UTC on version ${r.baseVersion}`,
    `message: ${r.message}`,
  ];
  if (r.decidedBy !== "")
    lines.push(
      `${STATE_NAMES[r.state]} by ${r.decidedBy} at ${when(r, "decideTime")} UTC${r.comment ? `: ${r.comment}` : ""}`,
    );
  if (r.state === ReviewState.OPEN && !r.current)
    lines.push(
      "out of date: the draft or the latest version changed since; the requester asks again",
    );
  output.out(
    `${lines.join("\n")}\n${summarizeChanges(r.changes)}:\n${changeLines(r.changes)}` +
      (r.state === ReviewState.OPEN && r.current
        ? "switchyard diff shows each change in full\n"
        : ""),
  );
}

export async function reviewApprove(
  client: ConfigClient,
  output: Output,
  idText: string,
  options: {
    comment?: string;
    overrideRouteTests?: string;
    abortRollout?: boolean;
    acceptWarnings?: boolean;
  },
  rollouts?: RolloutClient,
): Promise<void> {
  const { request, publish } = await client.approveReview({
    id: reviewIdArg(idText),
    comment: options.comment ?? "",
    routeTestOverride: options.overrideRouteTests ?? "",
    abortRollout: options.abortRollout === true,
    acceptWarnings: options.acceptWarnings === true,
  });
  for (const warning of publish?.warnings ?? []) output.out(`${formatIssue(warning)}\n`);
  output.out(
    `approved review #${request?.id}: published version ${publish?.snapshot?.version} (${summarizeChanges(publish?.changes ?? [])})\n`,
  );
  await printStartedRollouts(output, publish?.rolloutIds ?? [], rollouts);
}

export async function reviewClose(
  client: ConfigClient,
  output: Output,
  action: "reject" | "withdraw",
  idText: string,
  options: { comment?: string },
): Promise<void> {
  const input = { id: reviewIdArg(idText), comment: options.comment ?? "" };
  const request =
    action === "reject" ? await client.rejectReview(input) : await client.withdrawReview(input);
  output.out(`${action === "reject" ? "rejected" : "withdrew"} review #${request.id}\n`);
}
