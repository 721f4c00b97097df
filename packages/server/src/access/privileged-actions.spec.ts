import { readdirSync, readFileSync } from "node:fs";
import type { DescService } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { classifiedMethods, privilegeOf } from "./privileged-actions.js";

/** The repository's proto/switchyard/v1, where the API is defined. */
const PROTO_DIR = new URL("../../../../proto/switchyard/v1/", import.meta.url);

/** Every service of every .proto file there, as generated into @switchyard/proto. */
async function servicesInProto(): Promise<DescService[]> {
  const services: DescService[] = [];
  for (const file of readdirSync(PROTO_DIR).filter((f) => f.endsWith(".proto"))) {
    const names = [...readFileSync(new URL(file, PROTO_DIR), "utf8").matchAll(/^service (\w+)/gm)]
      .map((match) => match[1])
      .filter((name): name is string => name !== undefined);
    if (names.length === 0) continue;
    const generated = (await import(
      `@switchyard/proto/switchyard/v1/${file.replace(/\.proto$/, "_pb")}`
    )) as Record<string, DescService>;
    for (const name of names) {
      const service = generated[name];
      if (service?.kind !== "service") throw new Error(`${file}: ${name} was not generated`);
      services.push(service);
    }
  }
  return services;
}

describe("the privileged actions", () => {
  it("classify every method of every service in proto/, and name no method that does not exist", async () => {
    const services = await servicesInProto();
    const methods = services.flatMap((s) => s.methods.map((m) => `${s.typeName}/${m.name}`));

    expect(services.length).toBeGreaterThanOrEqual(4);
    expect([...classifiedMethods().keys()].sort()).toEqual(methods.sort());
    for (const service of services)
      for (const method of service.methods) expect(privilegeOf(method)?.why).toBeTruthy();
  });

  it("are what creates an account or a token, changes an account, a team's review, a team's domains, a cluster's or secret's owner or what is shared with a team, or deletes a team", () => {
    const privileged = [...classifiedMethods()]
      .filter(([, privilege]) => privilege.t === "privileged")
      .map(([method]) => method)
      .sort();

    expect(privileged).toEqual([
      "switchyard.v1.AccessService/AddTeamDomain",
      "switchyard.v1.AccessService/CreateToken",
      "switchyard.v1.AccessService/CreateUser",
      "switchyard.v1.AccessService/DeleteTeam",
      "switchyard.v1.AccessService/RemoveTeamDomain",
      "switchyard.v1.AccessService/SetClusterOwner",
      "switchyard.v1.AccessService/SetSecretOwner",
      "switchyard.v1.AccessService/SetSharing",
      "switchyard.v1.AccessService/UpdateTeam",
      "switchyard.v1.AccessService/UpdateUser",
    ]);
  });

  it("take the password in the request only where the request has a field for the caller's own", () => {
    const proofs = [...classifiedMethods()].flatMap(([method, privilege]) =>
      privilege.t === "privileged" && privilege.proof !== undefined
        ? [[method, privilege.proof]]
        : [],
    );

    expect(proofs).toEqual([
      ["switchyard.v1.AccessService/UpdateUser", "currentPassword"],
      ["switchyard.v1.AccessService/CreateToken", "password"],
    ]);
  });
});
