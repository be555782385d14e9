#!/usr/bin/env node
import { runCalEvents } from './cal-events.js'

// Every command has closed what it opened by now; exiting is quicker than waiting for idle timers.
void runCalEvents(process.argv.slice(2)).then((code) => process.exit(code))
