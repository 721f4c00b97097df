#!/usr/bin/env node
// Generates, into `src/gen/`, from the Envoy, xDS, googleapis and PGV protos of the pinned
// `@grpc/grpc-js-xds` package (offline) and our own `proto/` tree:
//
//   1. protobuf-es TypeScript for our protos and for the Envoy files the code imports by name
//      (ENVOY_TARGETS below, with what they import): typed schemas such as `ClusterSchema`;
//   2. `registry-set.ts`: one FileDescriptorSet of *every* Envoy v3 file whose imports the package
//      ships (computed, not listed: 345 files of 350 with @grpc/grpc-js-xds@1.14.1), so that every
//      Envoy message and extension (filters, tracers, access loggers, cluster extensions, ...) can
//      be checked, decoded and encoded by name. Loading it costs ~90 ms; generating TypeScript for
//      all of it would load 370 modules (~450 ms) in every process that touches a registry.
//
// buf v2 wants every module inside its own folder, so the proto roots are copied into the
// git-ignored `.buf-work/`, which is rebuilt from scratch on every run. Generated code is a build
// output: never edit or commit it.

import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

// The Envoy protos to generate TypeScript for, relative to the envoy-api root. A folder means every file in it.
// `include_imports` adds everything these import (envoy/type, xds, udpa, validate, google/api, ...).
// Each entry's whole import graph must be shipped in @grpc/grpc-js-xds@1.14.1 (checked when this
// list was written, bootstrap's 68 files included). Not generatable from that package: the v2 APIs,
// and the v3 opencensus tracer, OpenTelemetry access logger and metrics/trace services (they import
// opencensus, opentelemetry or prometheus protos it does not ship).
const ENVOY_TARGETS = [
  // Discovery: ADS, the (Delta)DiscoveryRequest/Response messages and the per-type services.
  "envoy/service/discovery/v3/ads.proto",
  "envoy/service/discovery/v3/discovery.proto",
  "envoy/service/cluster/v3/cds.proto",
  "envoy/service/endpoint/v3/eds.proto",
  "envoy/service/listener/v3/lds.proto",
  "envoy/service/route/v3/rds.proto",
  "envoy/service/route/v3/srds.proto",
  "envoy/service/secret/v3/sds.proto",
  "envoy/service/runtime/v3/rtds.proto",
  // Client Status Discovery (CSDS) and load reporting (LRS), served on the xDS port.
  "envoy/service/status/v3/csds.proto",
  "envoy/service/load_stats/v3/lrs.proto",
  // Resource types.
  "envoy/config/cluster/v3",
  "envoy/config/core/v3",
  "envoy/config/endpoint/v3",
  "envoy/config/listener/v3",
  "envoy/config/route/v3",
  "envoy/config/bootstrap/v3/bootstrap.proto",
  // Extensions carried in Any fields.
  "envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto",
  "envoy/extensions/filters/http/router/v3/router.proto",
  "envoy/extensions/filters/http/fault/v3/fault.proto",
  "envoy/extensions/filters/http/cors/v3/cors.proto",
  "envoy/extensions/filters/http/health_check/v3/health_check.proto",
  "envoy/extensions/filters/http/grpc_web/v3/grpc_web.proto",
  "envoy/extensions/filters/http/rbac/v3/rbac.proto",
  // On-demand virtual hosts (VHDS): the filter that makes Envoy request a host's virtual host.
  "envoy/extensions/filters/http/on_demand/v3/on_demand.proto",
  "envoy/extensions/transport_sockets/tls/v3",
  "envoy/extensions/upstreams/http/v3/http_protocol_options.proto",
  "envoy/extensions/access_loggers/file/v3/file.proto",
  "envoy/extensions/access_loggers/stream/v3/stream.proto",
  // Listener filters and network filters real edge configs carry (SNI needs the TLS inspector).
  "envoy/extensions/filters/listener/tls_inspector/v3/tls_inspector.proto",
  "envoy/extensions/filters/listener/http_inspector/v3/http_inspector.proto",
  "envoy/extensions/filters/listener/original_dst/v3/original_dst.proto",
  "envoy/extensions/filters/listener/proxy_protocol/v3/proxy_protocol.proto",
  "envoy/extensions/filters/network/tcp_proxy/v3/tcp_proxy.proto",
];

const XDS_PACKAGE = "@grpc/grpc-js-xds";
const XDS_VERSION = "1.14.1";

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const repoRoot = join(packageDir, "..", "..");
const workDir = join(packageDir, ".buf-work");
const outDir = join(packageDir, "src", "gen");
const require = createRequire(import.meta.url);

/** Prints what went wrong and how to fix it, then exits non-zero. */
function fail(message) {
  console.error(`\n@switchyard/proto generate: ${message}\n`);
  process.exit(1);
}

function packageRoot(name) {
  try {
    return dirname(require.resolve(`${name}/package.json`));
  } catch (cause) {
    fail(
      `cannot find the npm package ${name} (${cause.message}). Run \`npm install\` at the repo root.`,
    );
  }
}

/** Finds an executable that npm linked into some node_modules/.bin between here and the root. */
function binPath(name) {
  for (let dir = packageDir; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", ".bin", name);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) fail(`node_modules/.bin/${name} not found. Run \`npm install\`.`);
  }
}

// 1. The proto roots. Only .proto files are copied: the PGV folder also holds Java and test code.
const xdsRoot = packageRoot(XDS_PACKAGE);
const xdsVersion = JSON.parse(readFileSync(join(xdsRoot, "package.json"), "utf8")).version;
if (xdsVersion !== XDS_VERSION) {
  fail(
    `expected ${XDS_PACKAGE}@${XDS_VERSION} (the Envoy protos and the target list are checked ` +
      `against it), found ${xdsVersion}. Re-check ENVOY_TARGETS and the validate.proto patch, ` +
      "then update XDS_VERSION.",
  );
}
const roots = {
  "envoy-api": join(xdsRoot, "deps", "envoy-api"),
  xds: join(xdsRoot, "deps", "xds"),
  googleapis: join(xdsRoot, "deps", "googleapis"),
  "protoc-gen-validate": join(xdsRoot, "deps", "protoc-gen-validate", "validate"),
  proto: join(repoRoot, "proto"),
};

rmSync(workDir, { recursive: true, force: true });
for (const [module, source] of Object.entries(roots)) {
  if (!existsSync(source)) fail(`proto root ${source} is missing.`);
  // PGV's protos live under validate/, the import path prefix.
  const dest =
    module === "protoc-gen-validate" ? join(workDir, module, "validate") : join(workDir, module);
  cpSync(source, dest, {
    recursive: true,
    filter: (path) => path.endsWith(".proto") || statSync(path).isDirectory(),
  });
}

for (const target of ENVOY_TARGETS) {
  if (!existsSync(join(roots["envoy-api"], target))) {
    fail(`ENVOY_TARGETS lists ${target}, which ${XDS_PACKAGE}@${XDS_VERSION} does not ship.`);
  }
}

// 2. The shipped validate.proto predates the Envoy protos, which set `ignore_empty` on string
// rules; without the field buf rejects them. Field 26 is upstream PGV's number for it.
const validateProto = join(workDir, "protoc-gen-validate", "validate", "validate.proto");
const strictRule = "optional bool strict = 25 [default = true];";
const validateSource = readFileSync(validateProto, "utf8");
const stringRulesStart = validateSource.indexOf("message StringRules {");
const stringRules = validateSource.slice(
  stringRulesStart,
  validateSource.indexOf("\n}", stringRulesStart),
);
if (!/\bignore_empty\b/.test(stringRules)) {
  if (stringRulesStart === -1 || !stringRules.includes(strictRule)) {
    fail(`cannot patch ${validateProto}: "${strictRule}" not found in StringRules.`);
  }
  writeFileSync(
    validateProto,
    validateSource.replace(strictRule, `${strictRule}\n  optional bool ignore_empty = 26;`),
  );
}

// 3. buf configuration. All of our own protos are generated; buf refuses a whole module as a
// path, so they are listed by top-level folder. Paths are relative to the work folder.
const ownTargets = readdirSync(join(workDir, "proto"));
const bufYaml = `# Written by packages/proto/scripts/generate.mjs on every build; do not edit.
version: v2
modules:
${Object.keys(roots)
  .map((module) => `  - path: ${module}\n`)
  .join("")}`;

const bufGenYaml = `# Written by packages/proto/scripts/generate.mjs on every build; do not edit.
version: v2
clean: true
plugins:
  - local: ${relative(workDir, binPath("protoc-gen-es"))}
    out: ${relative(workDir, outDir)}
    # Without this only the listed files are generated, not what they import.
    include_imports: true
    # One plugin run for all files instead of one per folder (2 s instead of ~1 min).
    strategy: all
    opt:
      - target=ts
      - import_extension=js
inputs:
  - directory: .
    paths:
${ownTargets.map((target) => `      - proto/${target}\n`).join("")}${ENVOY_TARGETS.map((target) => `      - envoy-api/${target}\n`).join("")}`;

writeFileSync(join(workDir, "buf.yaml"), bufYaml);
writeFileSync(join(workDir, "buf.gen.yaml"), bufGenYaml);

// 4. Generate. dist/gen goes too, so a proto dropped from the list cannot linger in the build.
rmSync(join(packageDir, "dist", "gen"), { recursive: true, force: true });
const buf = join(packageRoot("@bufbuild/buf"), "bin", "buf");
const result = spawnSync(process.execPath, [buf, "generate"], { cwd: workDir, stdio: "inherit" });
if (result.error) fail(`could not run buf: ${result.error.message}`);
if (result.status !== 0) {
  fail(
    `buf generate failed (exit ${result.status ?? result.signal}); its errors are above. ` +
      `The inputs are in ${relative(repoRoot, workDir)}/ (buf.yaml, buf.gen.yaml); ` +
      "check ENVOY_TARGETS in scripts/generate.mjs and the .proto files under proto/.",
  );
}
if (!existsSync(outDir)) fail(`buf succeeded but wrote nothing to ${outDir}.`);

// 5. The registry's descriptor set: every Envoy v3 file (v3alpha included) whose whole import
// graph is shipped. The few that are not (they import opencensus, opentelemetry or prometheus
// protos) are left out; their messages are carried as TypedStruct by the importer.
const importsOf = new Map();
function shipped(file, stack = new Set()) {
  if (importsOf.has(file)) return importsOf.get(file);
  if (file.startsWith("google/protobuf/")) return true;
  const module = Object.keys(roots).find((m) => existsSync(join(workDir, m, file)));
  if (module === undefined) {
    importsOf.set(file, false);
    return false;
  }
  if (stack.has(file)) return true;
  stack.add(file);
  const source = readFileSync(join(workDir, module, file), "utf8");
  const ok = [...source.matchAll(/^import\s+(?:public\s+|weak\s+)?"([^"]+)";/gm)].every(
    ([, imported]) => shipped(imported, stack),
  );
  importsOf.set(file, ok);
  return ok;
}
// The xDS/udpa module adds what Envoy configs name in Any fields on their own: TypedStruct
// (xds.type.v3 and udpa.type.v1), which Envoy converts to the type it names, and the xds matchers
// and CEL inputs.
const protoFiles = (module, pattern) =>
  readdirSync(join(workDir, module), { recursive: true })
    .filter((path) => path.endsWith(".proto") && pattern.test(path))
    .map((path) => `${module}/${path}`);
const registryFiles = [
  ...protoFiles("envoy-api", /\/v3(alpha)?\//),
  ...protoFiles("xds", /^(xds\/type|udpa\/type)\//),
]
  .filter((path) => shipped(path.slice(path.indexOf("/") + 1)))
  .sort();
if (registryFiles.length < 300) {
  fail(
    `only ${registryFiles.length} Envoy v3 files have all their imports shipped: check the roots.`,
  );
}
const setFile = join(workDir, "registry.binpb");
const built = spawnSync(
  process.execPath,
  [
    buf,
    "build",
    "--exclude-source-info",
    "-o",
    setFile,
    ...registryFiles.flatMap((path) => ["--path", path]),
  ],
  { cwd: workDir, stdio: "inherit" },
);
if (built.status !== 0)
  fail(`buf build of the registry's descriptor set failed (exit ${built.status ?? built.signal}).`);
writeFileSync(
  join(outDir, "registry-set.ts"),
  `// @generated by packages/proto/scripts/generate.mjs: a FileDescriptorSet (binary, base64) of the
// ${registryFiles.length} Envoy v3 and xDS type files whose imports are shipped, and everything they
// import.
export const registrySetBase64 =
  "${readFileSync(setFile).toString("base64")}";
`,
);

// 6. src/gen/own-files.ts lists the file descriptors of our own protos (`proto/`), which the
// registry adds to the Envoy set, so it stays complete when a file is added. protoc-gen-es only
// writes *_pb.ts files, so this name cannot collide with its output.
const generated = readdirSync(outDir, { recursive: true })
  .filter((path) => path.endsWith("_pb.ts") && ownTargets.some((top) => path.startsWith(`${top}/`)))
  .sort();
const fileDescs = generated.map((path) => {
  const match = /^export const (file_\w+): GenFile = /m.exec(
    readFileSync(join(outDir, path), "utf8"),
  );
  if (match === null) fail(`no file descriptor export found in src/gen/${path}.`);
  return { name: match[1], module: `./${path.replace(/\.ts$/, ".js")}` };
});
writeFileSync(
  join(outDir, "own-files.ts"),
  `// @generated by packages/proto/scripts/generate.mjs: the descriptors of our own protos.
import type { DescFile } from "@bufbuild/protobuf";
${fileDescs.map(({ name, module }) => `import { ${name} } from "${module}";`).join("\n")}

export const ownFiles: readonly DescFile[] = [
${fileDescs.map(({ name }) => `  ${name},`).join("\n")}
];
`,
);
