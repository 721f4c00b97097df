import type { Metadata } from "next";
import { InventoryView } from "@/components/inventory/inventory-view";

export const metadata: Metadata = { title: "Configuration" };

export default function ConfigurationPage() {
  return <InventoryView />;
}
