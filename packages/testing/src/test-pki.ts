/**
 * Certificates made at test time, so no private key is ever committed: a CA per call to
 * `createTestCa`, and certificates it signs. Keys come from node's crypto (fast, native);
 * node-forge (pinned) builds and signs the X.509 certificates.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import forge from "node-forge";

export interface KeyAndCertificate {
  /** PEM */
  readonly cert: string;
  /** PEM (PKCS#8) */
  readonly key: string;
}

export interface IssueOptions {
  readonly commonName: string;
  /** DNS subject alternative names (a server certificate needs the host clients dial). */
  readonly dns?: readonly string[];
  /** IP subject alternative names. */
  readonly ips?: readonly string[];
  /** URI subject alternative names (e.g. a SPIFFE id). */
  readonly uris?: readonly string[];
}

export interface TestCa extends KeyAndCertificate {
  /** A server certificate (serverAuth) signed by this CA. */
  issueServer(options: IssueOptions): KeyAndCertificate;
  /** A client certificate (clientAuth) signed by this CA. */
  issueClient(options: IssueOptions): KeyAndCertificate;
}

interface RsaKeys {
  readonly publicKey: forge.pki.rsa.PublicKey;
  readonly privateKey: forge.pki.rsa.PrivateKey;
}

function newKeyPair(): { forgeKeys: RsaKeys; keyPem: string } {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  return {
    forgeKeys: {
      publicKey: forge.pki.publicKeyFromPem(publicKey) as forge.pki.rsa.PublicKey,
      privateKey: forge.pki.privateKeyFromPem(privateKey) as forge.pki.rsa.PrivateKey,
    },
    keyPem: privateKey,
  };
}

function newCertificate(
  publicKey: forge.pki.PublicKey,
  subject: string,
  issuer: forge.pki.CertificateField[] | undefined,
): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  // A positive serial: the high bit clear.
  cert.serialNumber = `01${randomBytes(15).toString("hex")}`;
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 24 * 3600_000);
  const attrs = [{ name: "commonName", value: subject }];
  cert.setSubject(attrs);
  cert.setIssuer(issuer ?? attrs);
  return cert;
}

/** A fresh self-signed CA. */
export function createTestCa(name = "switchyard test CA"): TestCa {
  const ca = newKeyPair();
  const caCert = newCertificate(ca.forgeKeys.publicKey, name, undefined);
  caCert.setExtensions([
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
  ]);
  caCert.sign(ca.forgeKeys.privateKey, forge.md.sha256.create());

  const issue = (options: IssueOptions, usage: "serverAuth" | "clientAuth") => {
    const leaf = newKeyPair();
    const cert = newCertificate(
      leaf.forgeKeys.publicKey,
      options.commonName,
      caCert.subject.attributes,
    );
    const altNames = [
      ...(options.dns ?? []).map((value) => ({ type: 2, value })),
      ...(options.uris ?? []).map((value) => ({ type: 6, value })),
      ...(options.ips ?? []).map((ip) => ({ type: 7, ip })),
    ];
    cert.setExtensions([
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
      { name: "extKeyUsage", [usage]: true },
      ...(altNames.length > 0 ? [{ name: "subjectAltName", altNames }] : []),
    ]);
    cert.sign(ca.forgeKeys.privateKey, forge.md.sha256.create());
    return { cert: forge.pki.certificateToPem(cert), key: leaf.keyPem };
  };

  return {
    cert: forge.pki.certificateToPem(caCert),
    key: ca.keyPem,
    issueServer: (options) => issue(options, "serverAuth"),
    issueClient: (options) => issue(options, "clientAuth"),
  };
}
