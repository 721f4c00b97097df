import type { Metadata } from "next";
import { NewSecret } from "@/components/config/secret-pages";

export const metadata: Metadata = { title: "Upload secret" };

export default function NewSecretPage() {
  return <NewSecret />;
}
