import { Skeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return <Skeleton label="the webhooks" rows={4} />;
}
