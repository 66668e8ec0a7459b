/** Types of scripts/rooms.mjs, a plain script node runs as it is, for the spec that imports it. */

/** The marker in docs/architecture.md after which the drawing sits. */
export declare const BEGIN: string
/** The marker in docs/architecture.md before which the drawing ends. */
export declare const END: string
/** The STACKS of .dependency-cruiser.cjs: stacks of layers (top first) of room names. */
export declare function readStacks(file?: string): string[][][]
/** The rooms drawing, a fenced text block. */
export declare function drawRooms(stacks?: string[][][]): string
/** `doc` with the drawing between its markers replaced. */
export declare function withDrawing(doc: string, drawing?: string): string
