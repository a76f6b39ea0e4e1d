export { InMemoryTaskStore } from './InMemoryTaskStore';
export { isTerminal, outstandingKeys, RELATED_TASK_META, TASKS_EXTENSION } from '../cluster/TaskStore';
export type { TaskInputRequest, TaskRecord, TaskStatus, TaskStore } from '../cluster/TaskStore';
export { ANSWER_ERROR_KEY, TaskQuestions } from './TaskQuestions';
export { NOT_RERUN_MESSAGE, TASK_RUN_META, TASKS_TOPIC, TaskRunner } from './TaskRunner';
export type { TaskClusterAttachment, TaskExecutor, TaskOptions, TaskOutcome, TaskStatusListener, TaskWatcher } from './TaskRunner';
