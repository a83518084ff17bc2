import { Skeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return <Skeleton label="the sign-in form" rows={2} />;
}
