import { Skeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return <Skeleton label="the agent" rows={5} />;
}
