/**
 * `switchyard rollout plans ...`: the stored rollout plans (RolloutService) and the admins'
 * default plan. A plan is written as a YAML or JSON document and checked by the server, which
 * names each problem at its place in the document. The rollouts publishes start are
 * rollout-run-commands.ts's.
 */
import { parse as parseYaml } from "yaml";
import { readApplySources } from "./apply-sources.js";
import { CliError, type RolloutClient } from "./client.js";
import { type Output, outputFormat, table } from "./output.js";

/** `switchyard rollout plans`: one line per plan, the default marked. */
export async function listPlans(client: RolloutClient, output: Output): Promise<void> {
  const { plans } = await client.listRolloutPlans({});
  if (plans.length === 0) {
    output.out("no rollout plans (switchyard rollout plans put NAME -f FILE stores one)\n");
    return;
  }
  output.out(
    table(
      ["NAME", "WAVES", "DEFAULT"],
      plans.map((plan) => [plan.name, plan.summary, plan.isDefault ? "default" : "-"]),
    ),
  );
}

/**
 * `switchyard rollout plans get NAME [-o yaml|json]`: the plan's document, which `put` reads
 * back as the same plan.
 */
export async function getPlan(
  client: RolloutClient,
  output: Output,
  name: string,
  options: { readonly output?: string },
): Promise<void> {
  const format = outputFormat(options.output, ["yaml", "json"], "yaml");
  const plan = await client.getRolloutPlan({ name });
  output.out(
    format === "json"
      ? `${JSON.stringify(parseYaml(plan.document), null, 2)}\n`
      : plan.document.endsWith("\n")
        ? plan.document
        : `${plan.document}\n`,
  );
}

/** `switchyard rollout plans put NAME -f FILE` (`-` for standard input). */
export async function putPlan(
  client: RolloutClient,
  output: Output,
  name: string,
  options: { readonly file: string },
): Promise<void> {
  const [source] = readApplySources([options.file], false);
  if (source === undefined) throw new CliError(`${options.file}: no plan file there`);
  const plan = await client.putRolloutPlan({ name, document: source.content });
  output.out(`stored rollout plan ${plan.name}: ${plan.summary}\n`);
}

/** `switchyard rollout plans delete NAME`. */
export async function deletePlan(
  client: RolloutClient,
  output: Output,
  name: string,
): Promise<void> {
  await client.deleteRolloutPlan({ name });
  output.out(`deleted rollout plan ${name}\n`);
}

/** `switchyard rollout plans default NAME` or `--none`. */
export async function setDefaultPlan(
  client: RolloutClient,
  output: Output,
  name: string | undefined,
  options: { readonly none?: boolean },
): Promise<void> {
  if (name !== undefined && options.none === true)
    throw new CliError("a plan's name and --none contradict each other: give one");
  if (name === undefined && options.none !== true)
    throw new CliError("name the default plan, or --none for no default plan");
  const answer = await client.setDefaultRolloutPlan({ name: name ?? "" });
  const was = answer.previous === "" ? "none" : answer.previous;
  output.out(
    answer.defaultPlan === ""
      ? `no default rollout plan now (it was ${was})\n`
      : `${answer.defaultPlan} is the default rollout plan now (it was ${was})\n`,
  );
}
