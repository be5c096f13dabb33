"""What a message asks and touches before any search: scope, concepts, intent, tone, map."""
