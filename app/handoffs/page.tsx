import { redirect } from "next/navigation";

/** The history lives on `/`; `/handoffs` is where people trim a thread URL back to. */
export default function HandoffsIndex() {
  redirect("/");
}
