-- Run once by the postgres image on an empty data directory (docker-entrypoint-initdb.d), as the
-- image's superuser. Switchyard connects as its own role: a login with no superuser, CREATEDB,
-- CREATEROLE, REPLICATION or BYPASSRLS attribute, owner of the switchyard database and of
-- nothing else. It runs its migrations there; it cannot read files, run programs or reach
-- another database. (The same role the embedded cluster gives it: packages/db/src/app-database.ts.)
CREATE ROLE switchyard WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
  PASSWORD 'switchyard';
CREATE DATABASE switchyard OWNER switchyard TEMPLATE template0 ENCODING 'UTF8';
REVOKE ALL ON DATABASE switchyard FROM PUBLIC;
REVOKE CONNECT, TEMPORARY ON DATABASE postgres, template1 FROM PUBLIC;
