-- SPDX-License-Identifier: GPL-2.0-or-later
--
-- The ClickHouse schema of pstored's clickhouse upload target (pstored.conf(5)):
-- the database pstored, the table of crashes the target inserts into, and the
-- views a fleet reads. Apply it once, as a user that may create databases:
--
--	clickhouse-client --multiquery </usr/share/pstored/clickhouse/schema.sql
--
-- Every statement is IF NOT EXISTS: applying it again changes nothing.
--
-- Tried with ClickHouse 18.16.1 (Debian 12's clickhouse-server) only. It keeps
-- to SQL that current ClickHouse takes as well (no DateTime64, which 18.16
-- lacks: the time is a DateTime in UTC and its microseconds a UInt64; the
-- MergeTree settings in the PARTITION BY / ORDER BY form, which current
-- versions require), but no later version was run here.
--
-- A table made before the column "document" came (the export document, which
-- pstorectl --clickhouse show and export read) takes it with
--	ALTER TABLE pstored.crashes ADD COLUMN document String
-- (18.16 has no ADD COLUMN IF NOT EXISTS, so this file cannot do it for you).
--
-- A crash sent twice (a batch resent after a timeout whose INSERT had in fact
-- landed) is two rows until ReplacingMergeTree merges the parts, and one
-- after: count crashes with uniqExact(machine_id, crash_id), or read the
-- table with FINAL, never with count().

CREATE DATABASE IF NOT EXISTS pstored;

-- One row a crash: the columns of lib/upload/clickhouse.h.
CREATE TABLE IF NOT EXISTS pstored.crashes (
	time DateTime('UTC'),
	time_usec UInt64,
	archived_at UInt64,
	machine_id String,
	crash_id String,
	boot_id String,
	hostname String,
	kind String,
	reason String,
	backend String,
	pstore_reason String,
	message String,
	function String,
	module String,
	kernel String,
	signature String,
	taint String,
	comm String,
	frame_function Array(String),
	frame_offset Array(Int64),
	frame_size Array(Int64),
	frame_module Array(String),
	dmesg String,
	records String,
	document String
) ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMM(time)
ORDER BY (machine_id, crash_id);

-- Per signature: how many crashes on how many machines, first and last seen,
-- on which kernels.
CREATE VIEW IF NOT EXISTS pstored.signatures AS
SELECT
	signature,
	uniqExact(machine_id, crash_id) AS crashes,
	uniqExact(machine_id) AS machines,
	min(time) AS first_seen,
	max(time) AS last_seen,
	arraySort(groupUniqArray(kernel)) AS kernels
FROM pstored.crashes
GROUP BY signature;

-- Per machine: its crashes, first and last seen, its last host name.
CREATE VIEW IF NOT EXISTS pstored.machines AS
SELECT
	machine_id,
	uniqExact(crash_id) AS crashes,
	uniqExact(signature) AS signatures,
	min(time) AS first_seen,
	max(time) AS last_seen,
	argMax(hostname, time_usec) AS hostname
FROM pstored.crashes
GROUP BY machine_id;

-- The groups of "pstorectl --clickhouse=URL list --group", kept up to date as
-- crashes are inserted, so that listing them reads a row a group and its
-- parts rather than every crash (a million crashes in well under a second).
-- A group is the crashes of one signature; a crash without one is a group of
-- its own, keyed by its id. Every state is one that a crash inserted twice
-- leaves as it was: the distinct crashes and machines, the first time, the
-- kernels, and the newest crash (by time, then crash id) with the columns of
-- a listing. Read it with the -Merge functions, GROUP BY no_signature, group_key
-- (the parts of one group are merged in the background, not at once).
CREATE TABLE IF NOT EXISTS pstored.groups (
	no_signature UInt8,
	group_key String,
	crashes AggregateFunction(uniqExact, String, String),
	machines AggregateFunction(uniqExact, String),
	first AggregateFunction(min, UInt64),
	kernels AggregateFunction(groupUniqArray, String),
	newest AggregateFunction(argMax,
		Tuple(String, String, String, String, String, String, String, String,
		      UInt64, UInt64, String, String, String, String, String, String,
		      String, String),
		Tuple(UInt64, String))
) ENGINE = AggregatingMergeTree()
ORDER BY (no_signature, group_key);

-- Fills pstored.groups from each INSERT into pstored.crashes. Crashes inserted
-- before it existed (with an earlier schema) are added once with the same
-- SELECT: INSERT INTO pstored.groups SELECT ... (as below, without the first
-- line); those inserted meanwhile are counted once all the same.
CREATE MATERIALIZED VIEW IF NOT EXISTS pstored.groups_fill TO pstored.groups AS
SELECT
	signature = '' AS no_signature,
	if(signature = '', crash_id, signature) AS group_key,
	uniqExactState(machine_id, crash_id) AS crashes,
	uniqExactState(if(machine_id = '', hostname, machine_id)) AS machines,
	minState(time_usec) AS first,
	groupUniqArrayState(kernel) AS kernels,
	argMaxState((crash_id, machine_id, hostname, boot_id, kind, reason, backend,
		     pstore_reason, time_usec, archived_at, message, function, module,
		     kernel, signature, taint, comm, records),
		    (time_usec, crash_id)) AS newest
FROM pstored.crashes
GROUP BY no_signature, group_key;
