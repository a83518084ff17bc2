import { revalidatePath } from "next/cache";

/** After a write to a thread: the history (counts, order) and the thread's own page. */
export function revalidateThread(id: string | undefined) {
  revalidatePath("/");
  if (id) revalidatePath(`/handoffs/${id}`);
}
