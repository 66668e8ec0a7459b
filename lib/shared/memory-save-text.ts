/**
 * The words the `memory_save` tool's result starts with (the model reads them, so they are Chinese by design): the
 * host's tool writes them and the page's view of a tool call (client/conversation/MemorySaveView.tsx) recognises a
 * pending, an incognito or a memory-off answer by them. Constants only.
 */

/** How the `memory_save` result starts when the facts await the user's approval (ask-first mode). */
export const PENDING_LEAD = '已提交给用户确认'

/** How the `memory_save` refusal starts in an incognito conversation (the model reads it; the page says its own). */
export const INCOGNITO_LEAD = '用户为本对话开启了无痕模式'

/** What the `memory_save` refusal says after the profile's name when the profile's memory is off. */
export const MEMORY_OFF_MARK = '关闭了长期记忆，用户选择不保存记忆'
