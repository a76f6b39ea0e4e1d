export { InMemoryTaskStore } from './InMemoryTaskStore';
export { isTerminal, RELATED_TASK_META, TASKS_EXTENSION } from './TaskStore';
export type { TaskRecord, TaskStatus, TaskStore } from './TaskStore';
export { NOT_RERUN_MESSAGE, TASK_RUN_META, TASKS_TOPIC, TaskRunner } from './TaskRunner';
export type { TaskClusterAttachment, TaskExecutor, TaskOptions, TaskOutcome, TaskStatusListener } from './TaskRunner';
