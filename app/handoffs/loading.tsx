import { Skeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return <Skeleton label="handoffs" rows={6} />;
}
