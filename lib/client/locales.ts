/**
 * The browser half's copy: the Chinese and English dictionaries (typed keys), the lookup, and the hook that
 * follows the host language. Owns every user-visible string of lib/client; it never talks to /__ap.
 * Lookup falls back to the built-in Chinese text, never to an empty string (design incident 5.1: an empty
 * fallback made hints vanish silently when the locale registration failed).
 */
import { useCallback, useSyncExternalStore } from 'react'

/** Namespace under which the dictionaries are registered with the host's locale service. */
export const LOCALE_NS = 'agent-profiles'

/** Simplified Chinese: the source of truth for the key set and the last-resort text of every key. */
export const zh = {
  // settings page frame
  'nav': '智能体配置',
  'page.title': '智能体配置',
  'page.intro': '每套配置包含角色、性格、说话习惯、行为准则与长期记忆。没有专属设定的对话都使用默认配置；改动从下一轮生效，历史记录不受影响。',
  'page.loading': '正在加载智能体配置…',
  'page.loadFailed': '加载失败：{message}',
  'action.retry': '重试',
  'action.cancel': '取消',
  'action.confirm': '确定',
  'action.close': '关闭',

  // list
  'list.title': '配置列表',
  'list.new': '新建配置',
  'list.default': '默认',
  'list.pinned': '{count} 个对话固定',
  'list.unnamed': '（未命名）',

  // editor
  'editor.title': '编辑「{name}」',
  'editor.unsaved': '有未保存的修改',
  'editor.saved': '已保存',
  'action.save': '保存',
  'action.saving': '正在保存…',
  'action.discard': '放弃修改',
  'action.duplicate': '复制',
  'action.delete': '删除',
  'action.setDefault': '设为默认',
  'badge.isDefault': '当前默认配置',
  'field.name': '名称',
  'field.emoji': '图标',
  'field.avatar': '头像',
  'field.role': '角色设定',
  'field.personality': '性格特点',
  'field.speakingStyle': '说话习惯',
  'field.rules': '行为准则',
  'field.memoryEnabled': '把长期记忆注入提示词',
  'field.summary': '记忆摘要',
  'field.items': '记忆条目',
  'field.note': '本对话补充设定',
  'hint.role': '它是谁、为谁工作、负责什么。',
  'hint.personality': '性格与态度，例如耐心、直接、严谨。',
  'hint.speakingStyle': '语气、篇幅、格式偏好。',
  'hint.rules': '必须遵守的准则，一行一条。',
  'hint.memoryEnabled': '关闭后记忆整块不进入提示词（仍然保留，可随时再打开）。',
  'hint.count': '{count} / {limit}',
  'editor.tooLong': '「{field}」有 {count} 字，超过上限 {limit}。',
  'editor.nameRequired': '名称不能为空。',
  'confirm.unsaved': '「{name}」有未保存的修改，确定放弃吗？',
  'confirm.delete': '删除「{name}」？此操作无法撤销。',
  'confirm.deleteUnbind': '删除「{name}」？有 {count} 个对话固定了它，这些对话会改回跟随默认配置。此操作无法撤销。',

  // avatar
  'avatar.pick': '选择图片',
  'avatar.replace': '更换图片',
  'avatar.remove': '移除头像',
  'avatar.working': '正在压缩…',
  'avatar.result': '已压缩为 {width}×{height} 像素，{size}',
  'avatar.hint': '支持 PNG、JPEG、WebP、GIF，浏览器内缩到最长边 512 像素后保存。',
  'avatar.svg': '不支持 SVG 图片（SVG 可以携带脚本）。请选择 PNG、JPEG、WebP 或 GIF。',
  'avatar.type': '不支持的文件类型「{type}」。请选择 PNG、JPEG、WebP 或 GIF。',
  'avatar.tooLarge': '文件太大：{size}，上限 {limit}。',
  'avatar.encodedTooLarge': '压缩后的图片仍有 {length} 字符，超过上限 {limit}。请换一张更简单的图片。',
  'avatar.decode': '无法读取这张图片：{message}',

  // memory
  'memory.source.user': '手动添加',
  'memory.source.tool': '模型保存',
  'memory.source.auto': '自动提炼',
  'memory.source.compress': '压缩生成',
  'memory.source.import': '导入',
  'memory.from': '来自对话 {session}',
  'memory.noSession': '不属于某个对话',
  'memory.add': '添加',
  'memory.addPlaceholder': '写下一条要长期记住的事实',
  'memory.edit': '编辑',
  'memory.done': '完成',
  'memory.delete': '删除',
  'memory.empty': '还没有记忆条目。',
  'memory.meter': '已用 {used} / {limit} 字（超过后自动压缩）',
  'memory.over': '已超过压缩阈值，后台会把记忆合并成摘要与精简条目。',
  'memory.itemTooLong': '记忆条目最多 {limit} 字，现在 {length} 字。',
  'memory.tooMany': '记忆条目最多 {limit} 条。',
  'memory.duplicate': '已有同样内容的条目。',

  // preview
  'preview.title': '模型看到的内容',
  'preview.size': '{chars} 字 · 约 {tokens} tokens',
  'preview.empty': '这套配置还没有内容，不会注入提示词。',
  'preview.loading': '正在生成预览…',
  'preview.failed': '预览失败：{message}',
  'preview.draft': '按当前草稿（未保存的修改也算）生成。',

  // import / export / maintenance
  'io.title': '导入与导出',
  'io.export': '导出文件',
  'io.exportHint': '导出所有配置（含头像与记忆，不含各对话的设定）。',
  'io.import': '导入文件',
  'io.mode': '导入方式',
  'io.merge': '合并（保留现有配置，重复的 id 自动改号）',
  'io.replace': '替换（用文件内容取代全部配置）',
  'io.imported': '已从「{file}」导入 {count} 套配置。',
  'io.parseError': '「{file}」不是有效的 JSON：{message}',
  'io.fileTooLarge': '「{file}」太大：{size}，上限 {limit}。',
  'io.confirmReplace': '用「{file}」替换全部 {count} 套现有配置？此操作无法撤销。',
  'io.maintenance': '维护',
  'io.restore': '恢复出厂设置',
  'io.confirmRestore': '恢复出厂的配置？现有的 {count} 套配置和所有对话设定都会被清除，此操作无法撤销。',
  'io.clearSessions': '清除所有对话设定',
  'io.confirmClearSessions': '清除 {count} 个对话的专属设定？这些对话会改回跟随默认配置，配置本身不受影响。',

  // diagnostics
  'diag.title': '诊断',
  'diag.dataFile': '数据文件',
  'diag.counts': '数量',
  'diag.countsValue': '{profiles} 套配置 · {sessions} 个对话设定 · {memories} 条记忆',
  'diag.scoped': '按对话注入的次数',
  'diag.global': '回落到全局配置的次数',
  'diag.lastError': '上次加载错误',
  'diag.keptAs': '损坏的文件已保留为 {path}',
  'diag.none': '无',
  'diag.memoryJob': '记忆后台任务',
  'diag.noRuns': '还没有运行记录',
  'diag.refresh': '刷新',
  'diag.subagent': '子代理注入的次数',
  'diag.agents': '带专属段落的对话',
  'diag.lastSizes': '最近注入的大小',
  'diag.size': '{chars} 字 · 约 {tokens} tokens',
  'diag.cut': '记忆已截断',
  'diag.warnings': '降级提示',
  'diag.jobOn': '已开启，每 {every} 轮提炼一次',
  'diag.jobOff': '已关闭',
  'diag.jobUnavailable': '不可用：{reason}',
  'diag.jobRunning': '正在处理：{sessions}',
  'diag.jobTotals': '共运行 {runs} 次 · 存入 {stored} 条 · 失败 {failed} 次 · 合并 {coalesced} 次',
  'diag.job.extract': '提炼',
  'diag.job.compress': '压缩',
  'diag.outcome.stored': '已存入 {added} 条',
  'diag.outcome.nothing-new': '没有新内容',
  'diag.outcome.skipped': '已跳过',
  'diag.outcome.failed': '失败',
  'diag.sent': '发送 {chars} 字',
  'diag.compression': '记忆压缩',
  'diag.compressOn': '记忆超过 {threshold} 字时自动压缩',
  'diag.compressTotals': '共运行 {runs} 次 · 压缩 {compressed} 次 · 失败 {failed} 次',

  // conversation: composer switcher, ⚙ panel, memory_save row
  'switcher.loading': '智能体…',
  'switcher.retry': '智能体配置',
  'switcher.loadFailed': '智能体配置加载失败：{message}。点击重试。',
  'switcher.label': '本对话的智能体：{name}（{state}）',
  'switcher.pinned': '已固定',
  'switcher.following': '跟随默认',
  'switcher.menu': '本对话使用的配置',
  'switcher.follow': '跟随默认配置',
  'switcher.followHint': '当前默认：{name}',
  'switcher.settings': '本对话设定',
  'switcher.didPin': '本对话改用「{name}」，下一轮起生效',
  'switcher.didFollow': '本对话改为跟随默认配置「{name}」，下一轮起生效',
  'panel.title': '本对话设定',
  'panel.usingPinned': '本对话固定使用「{name}」',
  'panel.usingDefault': '本对话跟随默认配置「{name}」',
  'panel.notePlaceholder': '例如：这个对话里一律用英文回答',
  'panel.noteHint': '只对这个对话生效，附在配置内容之后，下一轮起生效。',
  'panel.memories': '本对话专属记忆',
  'panel.memoriesHint': '只在这个对话里注入，不写进配置本身的记忆。',
  'panel.clear': '清除本对话设定',
  'panel.confirmClear': '清除本对话的设定？固定的配置、补充设定和 {count} 条专属记忆都会删除，对话改回跟随默认配置。',
  'panel.confirmDiscard': '本对话设定有未保存的修改，确定放弃吗？',
  'notice.session.pinned': '本对话固定使用「{name}」，下一轮起生效',
  'notice.session.updated': '本对话的设定已保存，下一轮起生效',
  'notice.session.cleared': '本对话已改回跟随全局配置',
  'notice.session.unchanged': '没有改动',
  'memorySave.running': '正在记住：{text}',
  'memorySave.saved': '已记住：{text}',
  'memorySave.savedHere': '已记住（仅本对话）：{text}',
  'memorySave.stopped': '没有记住（已中断）：{text}',
  'memorySave.failed': '没有记住：{message}',

  // notices of the host's commands (zh mirrors the store's own sentences; shown only outside Chinese)
  'notice.profile.created': '已新建「{name}」并设为当前配置',
  'notice.profile.unchanged': '没有改动',
  'notice.profile.updated': '已保存「{name}」',
  'notice.profile.duplicated': '已复制为「{name}」',
  'notice.profile.deleted': '已删除「{name}」，{unbound} 个对话改回跟随全局；当前配置：「{active}」',
  'notice.profile.activated': '当前配置：「{name}」',
  'notice.sessions.clearedAll': '已清除 {count} 个对话的专属设定',
  'notice.state.restored': '已恢复出厂的三套配置，各对话的专属设定已清除',
  'notice.state.imported': '已导入 {imported} 套配置',

  // generic
  'boundary.title': '这部分界面出错了',
  'boundary.hint': '其余界面不受影响。可以重试，或刷新页面。',
  'error.field': '字段「{field}」：{message}',
  'error.network': '无法连接到插件服务：{message}',
  'time.justNow': '刚刚',
} satisfies Record<string, string>

/** Every key of the browser half's copy. */
export type ApKey = keyof typeof zh

/** English, checked complete against the Chinese key set. */
export const en = {
  'nav': 'Agent profiles',
  'page.title': 'Agent profiles',
  'page.intro': 'Each profile holds a role, personality, speaking style, ground rules and long-term memory. Conversations without their own settings use the default profile; changes apply from the next turn and never touch the history.',
  'page.loading': 'Loading agent profiles…',
  'page.loadFailed': 'Could not load: {message}',
  'action.retry': 'Retry',
  'action.cancel': 'Cancel',
  'action.confirm': 'OK',
  'action.close': 'Close',

  'list.title': 'Profiles',
  'list.new': 'New profile',
  'list.default': 'Default',
  'list.pinned': 'Pinned in {count} conversations',
  'list.unnamed': '(unnamed)',

  'editor.title': 'Edit "{name}"',
  'editor.unsaved': 'Unsaved changes',
  'editor.saved': 'Saved',
  'action.save': 'Save',
  'action.saving': 'Saving…',
  'action.discard': 'Discard changes',
  'action.duplicate': 'Duplicate',
  'action.delete': 'Delete',
  'action.setDefault': 'Set as default',
  'badge.isDefault': 'Current default',
  'field.name': 'Name',
  'field.emoji': 'Emoji',
  'field.avatar': 'Avatar',
  'field.role': 'Role',
  'field.personality': 'Personality',
  'field.speakingStyle': 'Speaking style',
  'field.rules': 'Ground rules',
  'field.memoryEnabled': 'Inject long-term memory into the prompt',
  'field.summary': 'Memory summary',
  'field.items': 'Memory items',
  'field.note': 'Conversation note',
  'hint.role': 'Who it is, whom it works for, what it is responsible for.',
  'hint.personality': 'Temperament and attitude, e.g. patient, direct, rigorous.',
  'hint.speakingStyle': 'Tone, length and formatting preferences.',
  'hint.rules': 'Rules it must follow, one per line.',
  'hint.memoryEnabled': 'When off, memory is left out of the prompt entirely (it is kept and can be turned back on).',
  'hint.count': '{count} / {limit}',
  'editor.tooLong': '"{field}" has {count} characters, over the {limit} limit.',
  'editor.nameRequired': 'The name cannot be empty.',
  'confirm.unsaved': '"{name}" has unsaved changes. Discard them?',
  'confirm.delete': 'Delete "{name}"? This cannot be undone.',
  'confirm.deleteUnbind': 'Delete "{name}"? {count} conversations pin it; they will follow the default profile again. This cannot be undone.',

  'avatar.pick': 'Choose image',
  'avatar.replace': 'Change image',
  'avatar.remove': 'Remove avatar',
  'avatar.working': 'Shrinking…',
  'avatar.result': 'Shrunk to {width}×{height} px, {size}',
  'avatar.hint': 'PNG, JPEG, WebP or GIF; shrunk in the browser to 512 px on the longest side before saving.',
  'avatar.svg': 'SVG images are not accepted (they can carry scripts). Choose a PNG, JPEG, WebP or GIF.',
  'avatar.type': 'Unsupported file type "{type}". Choose a PNG, JPEG, WebP or GIF.',
  'avatar.tooLarge': 'File too large: {size}; the limit is {limit}.',
  'avatar.encodedTooLarge': 'The shrunk image is still {length} characters, over the {limit} limit. Try a simpler picture.',
  'avatar.decode': 'Could not read this image: {message}',

  'memory.source.user': 'Added by hand',
  'memory.source.tool': 'Saved by the model',
  'memory.source.auto': 'Extracted automatically',
  'memory.source.compress': 'From compression',
  'memory.source.import': 'Imported',
  'memory.from': 'from conversation {session}',
  'memory.noSession': 'not tied to a conversation',
  'memory.add': 'Add',
  'memory.addPlaceholder': 'A fact to remember long-term',
  'memory.edit': 'Edit',
  'memory.done': 'Done',
  'memory.delete': 'Delete',
  'memory.empty': 'No memory items yet.',
  'memory.meter': '{used} / {limit} characters used (compressed automatically above this)',
  'memory.over': 'Over the compression threshold: the background job will merge memory into a summary and fewer items.',
  'memory.itemTooLong': 'A memory item holds at most {limit} characters; this one has {length}.',
  'memory.tooMany': 'At most {limit} memory items.',
  'memory.duplicate': 'An item with the same text already exists.',

  'preview.title': 'What the model sees',
  'preview.size': '{chars} characters · about {tokens} tokens',
  'preview.empty': 'This profile has no content yet and injects nothing.',
  'preview.loading': 'Rendering preview…',
  'preview.failed': 'Preview failed: {message}',
  'preview.draft': 'Rendered from the current draft, unsaved changes included.',

  'io.title': 'Import and export',
  'io.export': 'Export file',
  'io.exportHint': 'Exports every profile with avatars and memory (conversation settings are not included).',
  'io.import': 'Import file',
  'io.mode': 'Import mode',
  'io.merge': 'Merge (keep current profiles; clashing ids get new ones)',
  'io.replace': 'Replace (the file replaces every profile)',
  'io.imported': 'Imported {count} profiles from "{file}".',
  'io.parseError': '"{file}" is not valid JSON: {message}',
  'io.fileTooLarge': '"{file}" is too large: {size}; the limit is {limit}.',
  'io.confirmReplace': 'Replace all {count} current profiles with "{file}"? This cannot be undone.',
  'io.maintenance': 'Maintenance',
  'io.restore': 'Restore factory defaults',
  'io.confirmRestore': 'Restore the factory profiles? Your {count} profiles and every conversation setting will be removed. This cannot be undone.',
  'io.clearSessions': 'Clear all conversation settings',
  'io.confirmClearSessions': 'Clear the settings of {count} conversations? They will follow the default profile again; the profiles themselves are kept.',

  'diag.title': 'Diagnostics',
  'diag.dataFile': 'Data file',
  'diag.counts': 'Counts',
  'diag.countsValue': '{profiles} profiles · {sessions} conversation settings · {memories} memories',
  'diag.scoped': 'Conversation-scoped injections',
  'diag.global': 'Global-fallback injections',
  'diag.lastError': 'Last load error',
  'diag.keptAs': 'The damaged file was kept as {path}',
  'diag.none': 'None',
  'diag.memoryJob': 'Memory background job',
  'diag.noRuns': 'No runs yet',
  'diag.refresh': 'Refresh',
  'diag.subagent': 'Subagent injections',
  'diag.agents': 'Conversations with their own section',
  'diag.lastSizes': 'Latest injection sizes',
  'diag.size': '{chars} characters · about {tokens} tokens',
  'diag.cut': 'memory cut',
  'diag.warnings': 'Degradations',
  'diag.jobOn': 'On, every {every} turns',
  'diag.jobOff': 'Off',
  'diag.jobUnavailable': 'Unavailable: {reason}',
  'diag.jobRunning': 'Working on: {sessions}',
  'diag.jobTotals': '{runs} runs · {stored} stored · {failed} failed · {coalesced} coalesced',
  'diag.job.extract': 'extraction',
  'diag.job.compress': 'compression',
  'diag.outcome.stored': 'stored {added}',
  'diag.outcome.nothing-new': 'nothing new',
  'diag.outcome.skipped': 'skipped',
  'diag.outcome.failed': 'failed',
  'diag.sent': 'sent {chars} characters',
  'diag.compression': 'Memory compression',
  'diag.compressOn': 'Compresses memory above {threshold} characters',
  'diag.compressTotals': '{runs} runs · {compressed} compressed · {failed} failed',

  'switcher.loading': 'Agent…',
  'switcher.retry': 'Agent profiles',
  'switcher.loadFailed': 'Could not load agent profiles: {message}. Click to retry.',
  'switcher.label': 'Agent of this conversation: {name} ({state})',
  'switcher.pinned': 'Pinned',
  'switcher.following': 'Default',
  'switcher.menu': 'Profile for this conversation',
  'switcher.follow': 'Follow the default profile',
  'switcher.followHint': 'Default now: {name}',
  'switcher.settings': 'This conversation\'s settings',
  'switcher.didPin': 'This conversation now uses "{name}" from the next turn',
  'switcher.didFollow': 'This conversation follows the default profile "{name}" from the next turn',
  'panel.title': 'This conversation',
  'panel.usingPinned': 'Pinned to "{name}"',
  'panel.usingDefault': 'Follows the default profile "{name}"',
  'panel.notePlaceholder': 'For example: answer in English in this conversation',
  'panel.noteHint': 'Applies to this conversation only, after the profile; takes effect from the next turn.',
  'panel.memories': 'Conversation-only memories',
  'panel.memoriesHint': 'Injected in this conversation only; the profile\'s own memory is not changed.',
  'panel.clear': 'Clear this conversation\'s settings',
  'panel.confirmClear': 'Clear this conversation\'s settings? The pinned profile, the note and {count} conversation-only memories are removed, and the conversation follows the default profile again.',
  'panel.confirmDiscard': 'This conversation\'s settings have unsaved changes. Discard them?',
  'notice.session.pinned': 'This conversation is pinned to "{name}" from the next turn',
  'notice.session.updated': 'Saved for this conversation; applies from the next turn',
  'notice.session.cleared': 'This conversation follows the default profile again',
  'notice.session.unchanged': 'Nothing changed',
  'memorySave.running': 'Remembering: {text}',
  'memorySave.saved': 'Remembered: {text}',
  'memorySave.savedHere': 'Remembered (this conversation only): {text}',
  'memorySave.stopped': 'Not remembered (interrupted): {text}',
  'memorySave.failed': 'Not remembered: {message}',

  'notice.profile.created': 'Created "{name}" and made it the default',
  'notice.profile.unchanged': 'No changes',
  'notice.profile.updated': 'Saved "{name}"',
  'notice.profile.duplicated': 'Duplicated as "{name}"',
  'notice.profile.deleted': 'Deleted "{name}"; {unbound} conversations follow the default again; the default is "{active}"',
  'notice.profile.activated': 'Default profile: "{name}"',
  'notice.sessions.clearedAll': 'Cleared the settings of {count} conversations',
  'notice.state.restored': 'Restored the three factory profiles; every conversation setting was cleared',
  'notice.state.imported': 'Imported {imported} profiles',

  'boundary.title': 'This part of the page failed',
  'boundary.hint': 'The rest of the page is unaffected. Retry, or reload the page.',
  'error.field': 'Field "{field}": {message}',
  'error.network': 'Cannot reach the plugin service: {message}',
  'time.justNow': 'just now',
} satisfies Record<ApKey, string>

/** A dictionary that may lack keys (a stale or partial translation). */
export type Dict = Partial<Record<ApKey, string>>

/** Template parameters: `{name}` in a template is replaced by `params.name`. */
export type Params = Record<string, string | number>

/** A bound translate function. */
export type T = (key: ApKey, params?: Params) => string

const DICTS: Readonly<Record<string, Dict>> = { zh, en }

/**
 * Look `key` up in the `locale` dictionary, then in the built-in Chinese; an empty translation counts as missing.
 */
export function translate(locale: string, key: ApKey, params?: Params, dicts: Readonly<Record<string, Dict>> = DICTS): string {
  const own = dicts[locale]?.[key]
  const template = own !== undefined && own !== '' ? own : zh[key] ?? key
  if (params === undefined) return template
  return template.replace(/\{(\w+)\}/g, (match, name: string) => (name in params ? String(params[name]) : match))
}

/** The slice of the host's locale service the copy follows. */
export interface LocaleSource {
  getLocale(): { active: string }
  subscribe(fn: () => void): () => void
}

const CHINESE: LocaleSource = { getLocale: () => ({ active: 'zh' }), subscribe: () => () => {} }
let source: LocaleSource = CHINESE

/** Follow `next` (the host's `ctx.locale`) from now on; the returned disposer goes back to Chinese. */
export function bindLocale(next: LocaleSource): () => void {
  source = next
  return () => {
    if (source === next) source = CHINESE
  }
}

/** The active host language id ('zh' | 'en'), read now. */
export function activeLocale(): string {
  return source.getLocale().active
}

const subscribeLocale = (fn: () => void): (() => void) => source.subscribe(fn)

/** React hook: a translate function for the active host language; re-renders when the user switches it. */
export function useT(): T {
  const active = useSyncExternalStore(subscribeLocale, activeLocale, activeLocale)
  return useCallback<T>((key, params) => translate(active, key, params), [active])
}
