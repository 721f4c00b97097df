export {
  artifactPath,
  CHROMIUM_PATH,
  launchBrowser,
  openWatchedPage,
  type TestBrowser,
  type WatchedPage,
  waitUntilNothingBusy,
} from "./browser.js";
export {
  CCORE_PYTHON,
  CcoreCallError,
  type CcoreClientOptions,
  type CcoreEchoClient,
  startCcoreEchoClient,
} from "./ccore-client.js";
export { ECHO_METHOD, type EchoBackend, startEchoBackend } from "./echo-backend.js";
export { envoySchemaBytes, envoySchemaFile, newerFieldsResources } from "./shared-data.js";
export { startTcpBalancer, type TcpBalancer } from "./tcp-balancer.js";
export {
  createTestCa,
  type IssueOptions,
  type KeyAndCertificate,
  type TestCa,
} from "./test-pki.js";
export {
  callUntilReady,
  createXdsEchoClient,
  grpcBootstrap,
  type XdsClientOptions,
  type XdsEchoClient,
} from "./xds-client.js";
