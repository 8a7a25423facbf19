// A worker_thread (workerData) or a cluster worker (PG_FLAKE_WORKER): takes a
// lease of its own over a connection of its own, makes `count` IDs and
// posts them back with its unit.
import cluster from 'node:cluster'
import { parentPort, workerData } from 'node:worker_threads'
import { LeasedGenerator } from 'pg-flake/lease'
import { config } from './config.mjs'

interface Job { dsn: string, format: 'sno' | 'siq' | 'snowflake' | 'kuid96', holder: string, count: number }

const job: Job = workerData ?? JSON.parse(process.env.PG_FLAKE_WORKER ?? 'null')
const gen = await LeasedGenerator.take(config(job.dsn), job.format, { holder: job.holder, ttl: 10 })
const ids: string[] = []
for (let i = 0; i < job.count; i++) ids.push(String(await gen.generateAsync()))
const { node, process: unit } = gen.lease
await gen.close()
const result = { ids, unit: `${node}/${unit}` }
if (parentPort !== null) parentPort.postMessage(result)
else if (cluster.isWorker) process.send?.(result)
