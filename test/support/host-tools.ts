/**
 * The tool names the real host offers a conversation, recorded from its requests, for the specs and benches that
 * need a realistic tool list without booting dsh. It records names only: what each tool does is the host's.
 */

/** The tools a `dsh web` conversation on the standard preset was offered (recorded from a real request), this
 * plugin's memory tool among them. */
export const STANDARD_TOOLS = [
  'ask_user_question',
  'bash',
  'create_goal',
  'edit',
  'exit_plan_mode',
  'get_goal',
  'glob',
  'grep',
  'interrupt_agent',
  'job_kill',
  'job_list',
  'job_output',
  'list_agents',
  'memory_save',
  'ralph',
  'read',
  'read_image',
  'send_message',
  'skill',
  'subagent',
  'subagent_fork',
  'todo_write',
  'update_goal',
  'web_search',
  'workflow',
  'write',
]
