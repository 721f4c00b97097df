export { quotedInput, shownPath, truncateUtf8, truncationMarker } from "./bounded-text.js";
export {
  type CompiledConfig,
  type CompiledGroup,
  type CompileMemo,
  type CompileOptions,
  type ConfigIssue,
  compile,
  DEFAULT_GROUP_NAME,
  type NodeSelector,
  type SecretReferrer,
  type WithheldSecret,
} from "./compile.js";
export {
  type EndpointOperation,
  type RegisteredEndpoint,
  registerEndpoints,
  registrationProblems,
} from "./endpoint-registration.js";
export {
  type AddressKind,
  addressKind,
  addressTarget,
  formatAddress,
  INTERNAL_PREFIX,
  PIPE_PREFIX,
} from "./envoy/envoy-address.js";
export {
  EnvoyExportError,
  type ExportOptions,
  envoyResourceJson,
  exportEnvoyConfig,
  exportEnvoyResources,
} from "./envoy/envoy-export.js";
export { envoyForm } from "./envoy/envoy-form.js";
export { edsResourceName } from "./envoy/envoy-json.js";
export {
  type EnvoyReference,
  findReferencesInJson,
  REFERENCE_KINDS,
  type ReferenceKind,
} from "./envoy/envoy-references.js";
export { sdsSecretJsonKeys } from "./envoy/envoy-secret-fields.js";
export {
  type DeliveryFile,
  deliveryFiles,
  deliveryPath,
  type FileFormat,
  fileNameOf,
} from "./file-delivery.js";
export {
  type ConfigSpecFragment,
  type DecodedResource,
  type EnvoyResource,
  type ImportError,
  type ImportedAssignment,
  type ImportOptions,
  type ImportResult,
  type ImportSeverity,
  importEnvoyConfig,
  normalizeEnvoyResources,
  type ParseOptions,
  type ParseResult,
  parseEnvoyConfig,
  RESOURCE_LIST_TYPE_NAMES,
  RESOURCE_LIST_TYPES,
  type ResourceListType,
  resourceJson,
  resourceListTypeOfFile,
  resourceName,
  resourceSchema,
} from "./import/envoy-import.js";
export {
  type ImportRename,
  type RenamedKind,
  renameResources,
} from "./import/envoy-import-rename.js";
export {
  type Clash,
  type ClashAction,
  DOCUMENT_KINDS,
  type DocumentKind,
  type MergeOptions,
  objectKey,
  planMerge,
  renamesNotTaken,
  withoutSkipped,
} from "./import/import-merge.js";
export {
  clusterLocalSources,
  listenerLocalSources,
  type ModelLocalSource,
  routeConfigurationLocalSources,
} from "./local-sources.js";
export {
  type MatchedNode,
  MatcherError,
  nodeMatcher,
  stringMatcher,
  structMatcher,
  valueMatcher,
} from "./match/matchers.js";
export {
  DEFAULT_REGEX_MAX_PROGRAM_SIZE,
  REGEX_ERROR_LEVEL_KEY,
  regexMaxProgramSize,
  setRegexMaxProgramSize,
} from "./match/regex-limit.js";
export { regexProgramSize } from "./match/regex-program-size.js";
export type {
  ClusterSpec,
  ConfigSpec,
  DiscoveryType,
  EndpointSpec,
  FilterChainSpec,
  HealthStatus,
  JsonObject,
  JsonValue,
  LbPolicy,
  ListenerSpec,
  LocalitySpec,
  NodeGroupSpec,
  RouteActionKind,
  RouteConfigurationSpec,
  RouteMatchKind,
  RouteSpec,
  RuntimeEntrySpec,
  RuntimeLayerSpec,
  RuntimeValue,
  SecretSpec,
  SecretType,
  VirtualHostSpec,
  WeightedClusterSpec,
} from "./model.js";
export { configSpecOf } from "./model.js";
export { type NodeIdentity, selectNodeGroup } from "./node-group.js";
export {
  type Dependents,
  dependentsIn,
  dependentsOf,
  type ObjectKey,
} from "./object-dependents.js";
export {
  clusterReferences,
  type ModelReference,
  type RouteConfigurationReference,
  routeConfigurationReferences,
} from "./object-references.js";
export {
  PROXY_LOCAL_FIELDS,
  type ProxyLocalField,
  type ProxyLocalKind,
} from "./proxy-local/proxy-local-fields.js";
export {
  type ChosenVirtualHost,
  checkRouteTest,
  type DomainMatchKind,
  type Forwarding,
  type HeaderMutations,
  type HeaderOperation,
  type HostRewrite,
  type HttpFilterInForce,
  type MatchedRoute,
  type Outcome,
  type PathMatchKind,
  type PathRewrite,
  type PolicyInForce,
  parseRouterCheckTests,
  type RefusalCode,
  ROUTER_CHECK_LIMITS,
  type RouteAnswer,
  type RouteMatchReason,
  type RouteRefusal,
  type RouteRequest,
  type RouteResult,
  type RouterCheckExpectations,
  type RouterCheckInput,
  type RouterCheckParse,
  type RouterCheckProblem,
  type RouterCheckTest,
  type RouteTestMismatch,
  type RouteTestResult,
  type RouteTestTarget,
  type RouteVerdict,
  type RuntimeFractionUse,
  routeRequest,
  type Timeouts,
  type WeightedClusterShare,
} from "./routing/routing-api.js";
export {
  createSecretBox,
  isCurrentSeal,
  isSealed,
  type SecretBox,
  SecretBoxError,
  type SecretOpener,
  sealedKeyId,
  sealedMarker,
  secretKeyId,
} from "./secret-box.js";
export {
  type CertificateInfo,
  type CheckedPrivateKey,
  certificatePublicKeyFingerprint,
  checkPrivateKey,
  holdsPrivateKey,
  type ParsedCertificates,
  parseCertificates,
  secretResourceExpiry,
} from "./secret-pem.js";
export {
  holdsValues,
  MAX_GENERIC_SECRET_BYTES,
  openValue,
  SESSION_TICKET_KEY_BYTES,
  sealValue,
  type ValueInfo,
  type ValueProblem,
  type ValueSecretType,
  valueInfo,
  valueProblems,
} from "./secret-values.js";
export {
  type HoldingChange,
  heldAfter,
  heldVersion,
  NOTHING_HELD,
  resourcesVersion,
} from "./serving/held-maps.js";
export { rejectedNames } from "./serving/nack-attribution.js";
export {
  type BreakStep,
  type CursorState,
  containRejections,
  type HeldBack,
  type HeldResources,
  type HoldReason,
  type MakeStep,
  PlanCursor,
  type PlanStep,
  planUpdate,
  type Rejection,
  type StepAnswer,
  type StepAwaits,
  type UpdatePlan,
} from "./serving/plan.js";
export {
  createResource,
  isFullStateType,
  ResourceSnapshot,
  referencedType,
  resourceVersion,
  shortType,
  TYPE_ORDER,
  TypeUrl,
  versionOf,
  type XdsResource,
} from "./serving/resource-snapshot.js";
export {
  DEFAULT_MAX_RESPONSE_BYTES,
  MAX_MAX_RESPONSE_BYTES,
  MIN_MAX_RESPONSE_BYTES,
  maxResponseBytes,
  type ResourceForm,
  removedNameBytes,
  resourceBytes,
  responseBudget,
  responseHeadroom,
  setMaxResponseBytes,
  totalBytes,
} from "./serving/response-size.js";
export {
  type DomainCandidate,
  selectVirtualHost,
  splitVhdsName,
  VirtualHostIndex,
  vhdsResourceName,
} from "./serving/vhds.js";
export {
  contextMismatch,
  directoryOf,
  formatXdstp,
  globDirectory,
  globKeyOf,
  isGlob,
  isXdstp,
  type NodeContext,
  parseXdstp,
  storedNameOf,
  typeUrlOf,
  type XdstpName,
  type XdstpParse,
  xdstpNameOf,
} from "./serving/xdstp.js";
export { projectXdstp, servesXdstp } from "./serving/xdstp-projection.js";
export {
  type ChangeKind,
  canonicalJson,
  diffManifests,
  draftRevision,
  EMPTY_MANIFEST,
  ENVOY_KINDS,
  type EnvoyKindFields,
  envoyObjectsWhere,
  KIND_LABEL,
  KIND_OF_FIELD,
  SOURCE_KINDS,
  type SourceChange,
  type SourceKind,
  type SourceManifest,
  type SourceObject,
  SPEC_FIELD,
  sourceManifest,
  sourceObject,
  sourceObjects,
  specFromSources,
  specOfSource,
} from "./sources.js";
export { issuesAbout, type ObjectRef } from "./validate/issue-objects.js";
export { type ValidateOptions, validate } from "./validate/validate.js";
export {
  type PredictedRejection,
  type RejectingClient,
  rejectedBy,
  type Severity,
  VALIDATION_CODES,
  type ValidationCode,
  type ValidationIssue,
  type ValidationReport,
} from "./validate/validate-issues.js";
export {
  issueObject,
  markPublishedRejections,
  newRejections,
  predictedRejections,
  type RejectionEntry,
  rejectionKey,
} from "./validate/validate-rejections.js";
export { runtimeKeyProblem, runtimeValueProblem } from "./validate/validate-runtime.js";
export { MAX_NAME_LENGTH, nameProblem, quotedName } from "./validate/validate-syntax.js";
