import type { Metadata } from "next";
import { SecretList } from "@/components/config/secret-pages";

export const metadata: Metadata = { title: "Secrets" };

export default function SecretsPage() {
  return <SecretList />;
}
