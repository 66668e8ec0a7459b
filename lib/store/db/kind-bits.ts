/**
 * The bits of a memory item row's `kind` column (item-kinds.ts keeps the column, item-counts.ts counts by it): an
 * item that is memory has neither of the first two. Its own module, so that both read one definition without either
 * importing the other.
 */
export const KIND = { pending: 1, archived: 2, pinned: 4 } as const
