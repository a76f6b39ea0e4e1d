export type { Logger } from './Logger';
export { Context } from './Context';
export type { Interceptor, Middleware, MiddlewareContext, InvocationTarget } from './middleware';
export type { Plugin, PluginHost, PluginRequestHandler, PluginNotificationHandler, CapabilityValue, ServiceKey, ServedItem } from './plugins';
export type { ServerObserver, ObservedRequest, ObservedConnection, ObservedStream, RequestOutcome } from './observers';
