/**
 * The Chinese copy of the conversation: the composer's quick switcher, the ⚙ panel, turn heads, speakers and mentions.
 * Data only; copy-zh.ts merges the areas into one table (the key set the English copy must match) and locales.ts looks
 * texts up.
 */

/** Chinese texts of the conversation. */
export const conversation = {
  'turn.model': '由 {model}（{provider}）回答',
  'turn.modelUser': '由 {model}（{provider}）回答，是你在输入框里选的',
  'turn.profileModel': '配置的模型：{model}',
  'turn.modelFallback': '配置的模型 {wanted} 不可用（{reason}），本轮改由 {model}（{provider}）回答',
  'turn.modelFallbackShort': '⚠ 配置的模型不可用，改由 {model} 回答',
  'turn.deletedProfile': '已删除的角色',
  'turn.memoriesUsed': '用了 {count} 条记忆',
  'turn.memoriesTitle': '这一轮用到的记忆',
  'turn.memoriesNone': '这一轮没有记录用到的记忆。',
  'turn.memoryInSettings': '在设置中编辑',
  'turn.memoryInPanel': '在 ⚙ 面板中编辑',
  'turn.recalled': '回忆',
  'turn.recalledHint': '这一轮按你说的话从记忆里找回来的，不在常驻记忆里。',
  'turn.savedAt': '（{time} 记下）',
  'speakers.rowNext': '接下来由「{name}」回答',
  'speakers.rowBack': '回到「{name}」',

  // conversation: composer switcher, ⚙ panel, memory_save row
  'switcher.loading': '智能体…',
  'switcher.retry': '智能体配置',
  'switcher.loadFailed': '智能体配置加载失败：{message} 点击重试。',
  'switcher.label': '本对话的智能体：{name}（{state}）',
  'switcher.model': '模型：{model}',
  'switcher.pinned': '已固定',
  'switcher.following': '跟随默认',
  'switcher.menu': '本对话使用的配置',
  'switcher.follow': '跟随默认配置',
  'switcher.followHint': '默认配置：{name}',
  'switcher.settings': '本对话设定',
  'switcher.didPin': '本对话改用「{name}」，下一轮起生效',
  'switcher.didPinElsewhere':
    '「{name}」已固定到你点选时打开的那个对话，而不是这个对话；要在这里用它，请在这里再选一次',
  'switcher.didFollowElsewhere': '你点选时打开的那个对话已改为跟随默认配置「{name}」；这个对话没有变',
  'switcher.failedElsewhere': '在之前打开的那个对话里的选择没有成功：{message}',
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
  'panel.incognito': '无痕：本对话不写入记忆',
  'panel.incognitoHint':
    '开启后本对话仍会读取记忆，但模型的 memory_save 会被拒绝，后台也不会从本对话提取记忆。立即生效。',
  'panel.refreshMemory': '刷新记忆',
  'panel.refreshMemoryHint':
    '模型和后台保存新事实时，本对话沿用开始时的记忆，这样服务商能复用已缓存的对话历史（这些事实模型在对话中已经看到）。刷新后，下一轮起本对话使用最新的记忆。你亲手做的修改总是下一轮起生效。',
  'switcher.incognito': '无痕',
  'switcher.incognitoHint': '本对话开启了无痕：读取记忆，但不写入任何记忆',
  'panel.saved': '本对话的设定已保存，下一轮起生效',
  'switcher.pending': '待批准 {count}',
  'switcher.pendingHint': '{count} 条记忆建议等你批准（在 ⚙ 面板里处理）',
  'cast.add': '把「{name}」加入对话阵容（@所有人 依次回答）',
  'cast.remove': '把「{name}」移出对话阵容',
  'cast.hint': '在消息里写 @名字 让某个配置回答一条；@所有人 请阵容里的每个配置依次回答（最多 {limit} 个）。',
  // @ mentions in the composer
  'mention.section': '智能体配置',
  'mention.candidate': '由「{name}」回答这一条',
  'mention.ambiguous': '「{word}」对应 {count} 个配置（{names}）：请写出完整的名字。',
  'mention.nested': '「@{word}…」可能指{names}：请在名字后加空格或标点（如「@{word} …」），否则不会请任何配置回答。',
  'mention.same': '有 {count} 个配置都叫「{word}」：请在设置里给其中一个改名，好让 @ 能找到每一个。',
  'mention.everyone': '整个阵容（@所有人）',
  'mention.allCandidate': '请本对话阵容里的每个配置依次回答',
  'mention.all': '@所有人 会依次请对话阵容里的每个配置回答；这个对话还没有阵容（在切换器里添加）。',
} satisfies Record<string, string>
