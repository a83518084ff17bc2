import { Skeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return <Skeleton label="the access tokens" rows={4} />;
}
