import { Skeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return <Skeleton label="agents" rows={6} />;
}
