'use strict';
/**
 * The floor with the imports a TypeMCP server's DTOs make (`reflect-metadata` and
 * `class-validator`), and nothing else: the lower bound of cold start and RSS for any server
 * whose inputs are class-validator DTOs, unbundled. Cold starts only.
 */
require('reflect-metadata');
require('class-validator');
require('./floor.js');
