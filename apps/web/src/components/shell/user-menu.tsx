"use client";

import { createClient } from "@connectrpc/connect";
import { useTransport } from "@connectrpc/connect-query";
import { AccessService } from "@switchyard/proto/switchyard/v1/access_pb";
import { usePathname } from "next/navigation";
import { useCaller } from "@/components/access/use-caller";
import { Button } from "@/components/ui/button";

/** Who is signed in (and their role and team), and signing out. Nothing on the login page. */
export function UserMenu() {
  const pathname = usePathname();
  if (pathname === "/login") return null;
  return <SignedIn />;
}

function SignedIn() {
  const transport = useTransport();
  const caller = useCaller();
  if (caller.username === undefined) return null;
  const signOut = async () => {
    try {
      await createClient(AccessService, transport).logout({});
    } finally {
      // A full navigation: nothing read as this user stays in memory.
      window.location.assign("/login");
    }
  };
  return (
    <div className="flex items-center gap-3 text-sm">
      <span>
        <span className="sr-only">Signed in as </span>
        <span className="font-medium text-fg">{caller.username}</span>{" "}
        <span className="text-fg-muted">
          ({caller.role}
          {caller.team ? `, ${caller.team.name}` : ""})
        </span>
      </span>
      <Button onClick={() => void signOut()}>Sign out</Button>
    </div>
  );
}
