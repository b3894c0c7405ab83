--
-- PostgreSQL database dump
--

\restrict VM7CSGMsILya8lK0jDNecLQHV1TZAdrILp7sm9iivwdq9aM5G6k5IXEuDainlM9

-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: account_versions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.account_versions (
    account_id character varying(32) NOT NULL,
    version bigint NOT NULL
);


--
-- Name: accounts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.accounts (
    id character varying(32) NOT NULL,
    status character varying(16) NOT NULL,
    billing_address_valid boolean NOT NULL,
    filesystem_quota bigint NOT NULL,
    ruleset_quota bigint NOT NULL,
    inbound_rules text NOT NULL,
    global_rules text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL
);


--
-- Name: api_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.api_keys (
    id character varying(32) NOT NULL,
    account_id character varying(32) NOT NULL,
    user_id character varying(32) NOT NULL,
    name character varying(64) NOT NULL,
    prefix character varying(16) NOT NULL,
    hash character varying(64) NOT NULL,
    created_at timestamp with time zone,
    last_used_at timestamp with time zone,
    revoked_at timestamp with time zone
);


--
-- Name: audit_events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_events (
    id character varying(32) NOT NULL,
    account_id character varying(32) NOT NULL,
    event_time timestamp with time zone NOT NULL,
    service_name character varying(32) NOT NULL,
    resource_name character varying(64) NOT NULL,
    action character varying(32) NOT NULL,
    catalog_version character varying(16) NOT NULL,
    actor_lrn character varying(128),
    resource_lrns text NOT NULL,
    resource_owner_lrn character varying(128),
    request_api_key_lrn character varying(128),
    additional_details text NOT NULL
);


--
-- Name: capacity_locks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.capacity_locks (
    instance_type_name character varying(64) NOT NULL,
    region_name character varying(32) NOT NULL
);


--
-- Name: filesystems; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.filesystems (
    id character varying(32) NOT NULL,
    account_id character varying(32) NOT NULL,
    name character varying(60) NOT NULL,
    region_name character varying(32) NOT NULL,
    created_by_user_id character varying(32) NOT NULL,
    bytes_used bigint NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL
);


--
-- Name: firewall_rulesets; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.firewall_rulesets (
    id character varying(32) NOT NULL,
    account_id character varying(32) NOT NULL,
    name character varying(64) NOT NULL,
    region_name character varying(32) NOT NULL,
    rules text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL
);


--
-- Name: instance_filesystems; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.instance_filesystems (
    instance_id character varying(32) NOT NULL,
    filesystem_id character varying(32) NOT NULL,
    mount_point character varying(256) NOT NULL
);


--
-- Name: instance_rulesets; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.instance_rulesets (
    instance_id character varying(32) NOT NULL,
    ruleset_id character varying(32) NOT NULL
);


--
-- Name: instances; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.instances (
    id character varying(32) NOT NULL,
    account_id character varying(32) NOT NULL,
    name character varying(64) NOT NULL,
    region_name character varying(32) NOT NULL,
    instance_type_name character varying(64) NOT NULL,
    status character varying(16) NOT NULL,
    status_until timestamp with time zone,
    ip character varying(45) NOT NULL,
    private_ip character varying(45) NOT NULL,
    hostname character varying(63) NOT NULL,
    ssh_key_names text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    tags text NOT NULL
);


--
-- Name: schema_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schema_migrations (
    id character varying(64) NOT NULL
);


--
-- Name: sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sessions (
    id character varying(32) NOT NULL,
    token_hash character varying(64) NOT NULL,
    user_id character varying(32) NOT NULL,
    csrf_token character varying(64) NOT NULL,
    flash character varying(512) NOT NULL,
    source_ip character varying(45) NOT NULL,
    created_at timestamp with time zone NOT NULL,
    last_seen_at timestamp with time zone NOT NULL
);


--
-- Name: settings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.settings (
    name character varying(64) NOT NULL,
    value text NOT NULL
);


--
-- Name: ssh_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.ssh_keys (
    id character varying(32) NOT NULL,
    account_id character varying(32) NOT NULL,
    name character varying(64) NOT NULL,
    public_key character varying(4096) NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: ticket_comments; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.ticket_comments (
    id character varying(32) NOT NULL,
    ticket_id character varying(32) NOT NULL,
    seq bigint NOT NULL,
    author_user_id character varying(32),
    author character varying(254) NOT NULL,
    body text NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: tickets; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.tickets (
    id character varying(32) NOT NULL,
    account_id character varying(32) NOT NULL,
    created_by_user_id character varying(32) NOT NULL,
    subject character varying(200) NOT NULL,
    description text NOT NULL,
    request_type character varying(32) NOT NULL,
    severity character varying(8),
    status character varying(16) NOT NULL,
    instance_ip character varying(45),
    instance_id character varying(32),
    cluster_id character varying(32),
    source character varying(16) NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    resolved_at timestamp with time zone
);


--
-- Name: users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.users (
    id character varying(32) NOT NULL,
    account_id character varying(32),
    email character varying(254) NOT NULL,
    password_hash character varying(100) NOT NULL,
    role character varying(16) NOT NULL,
    status character varying(16) NOT NULL,
    created_at timestamp with time zone,
    updated_at timestamp with time zone
);


--
-- Name: webhook_attempts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_attempts (
    id character varying(32) NOT NULL,
    delivery_id character varying(32) NOT NULL,
    number bigint NOT NULL,
    endpoint_id character varying(32) NOT NULL,
    url character varying(2048) NOT NULL,
    started_at timestamp with time zone NOT NULL,
    duration bigint NOT NULL,
    remote_addr character varying(64) NOT NULL,
    request_headers text NOT NULL,
    status_code bigint NOT NULL,
    response_headers text NOT NULL,
    response_body bytea,
    body_truncated boolean NOT NULL,
    error_kind character varying(16) NOT NULL,
    error character varying(1024) NOT NULL,
    succeeded boolean NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: webhook_deliveries; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_deliveries (
    id character varying(32) NOT NULL,
    event_id character varying(32) NOT NULL,
    endpoint_id character varying(32) NOT NULL,
    status character varying(16) NOT NULL,
    next_attempt_at timestamp with time zone NOT NULL,
    tries bigint NOT NULL,
    attempts bigint NOT NULL,
    lease_owner character varying(32) NOT NULL,
    lease_until timestamp with time zone,
    last_status_code bigint NOT NULL,
    last_error character varying(1024) NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    completed_at timestamp with time zone
);


--
-- Name: webhook_endpoints; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_endpoints (
    id character varying(32) NOT NULL,
    account_id character varying(32) NOT NULL,
    url character varying(2048) NOT NULL,
    token character varying(128) NOT NULL,
    secret character varying(128) NOT NULL,
    enabled boolean NOT NULL,
    disabled_reason character varying(512) NOT NULL,
    disabled_at timestamp with time zone,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL
);


--
-- Name: webhook_events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_events (
    id character varying(32) NOT NULL,
    account_id character varying(32) NOT NULL,
    type character varying(64) NOT NULL,
    ticket_id character varying(32),
    payload text NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Data for Name: account_versions; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.account_versions VALUES ('01234c80fe02ff53286ce0657cf36380', 9007326290004404040);


--
-- Data for Name: accounts; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.accounts VALUES ('01234c80fe02ff53286ce0657cf36380', 'active', true, 25, 50, '[{"protocol":"tcp","port_range":[22,22],"source_network":"0.0.0.0/0","description":"Allow SSH from anywhere"}]', '[]', '2026-01-02 03:04:05+00', '2026-01-02 03:04:05+00');


--
-- Data for Name: api_keys; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.api_keys VALUES ('78e17b437656c548af33a0c7cb6808bc', '01234c80fe02ff53286ce0657cf36380', '788a10b160b0dd27defff53db40eb8f8', 'laptop', 'cpk_9e2736d9', 'b83c2d29e06e3407cff958588587bbcdfca8c1abfb8ec0da2992f6e43076625a', '2026-01-02 03:04:05+00', NULL, NULL);
INSERT INTO public.api_keys VALUES ('1b3639c6d263657fb2a79830afd1dd0c', '01234c80fe02ff53286ce0657cf36380', '788a10b160b0dd27defff53db40eb8f8', 'revoked', 'cpk_467b8396', 'b657d40d0bf1d88c8a6fe05b2e140bac2c615fb30205b019e5fcc456d132e5f5', '2026-01-02 03:04:05+00', NULL, NULL);


--
-- Data for Name: audit_events; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.audit_events VALUES ('4f6df22ed7280df98bd93a2574c15a99', '01234c80fe02ff53286ce0657cf36380', '2026-01-02 03:04:05+00', 'cloud', 'user', 'created', '1.0', 'lrn:cloud:operator:cli', '["lrn:cloud:user:788a10b160b0dd27defff53db40eb8f8"]', 'lrn:cloud:account:01234c80fe02ff53286ce0657cf36380', NULL, '{"email":"owner@example.com","role":"owner"}');
INSERT INTO public.audit_events VALUES ('feaa2a49f13baf26f21adaf5fc829d50', '', '2026-01-02 03:04:05+00', 'cloud', 'user', 'created', '1.0', 'lrn:cloud:operator:cli', '["lrn:cloud:user:2d4623f9e9f16ba4d9efe2faac440e97"]', NULL, NULL, '{"email":"help@example.com","role":"support"}');
INSERT INTO public.audit_events VALUES ('dc2767a42f719f129142e3dde4a6cf9b', '01234c80fe02ff53286ce0657cf36380', '2026-01-02 03:04:05+00', 'cloud', 'api_key', 'created', '1.0', 'lrn:cloud:user:788a10b160b0dd27defff53db40eb8f8', '["lrn:cloud:api_key:78e17b437656c548af33a0c7cb6808bc"]', 'lrn:cloud:account:01234c80fe02ff53286ce0657cf36380', NULL, '{"name":"laptop","prefix":"cpk_9e2736d9"}');
INSERT INTO public.audit_events VALUES ('be23dca20b78e23a0226bf63a7b7030f', '01234c80fe02ff53286ce0657cf36380', '2026-01-02 03:04:05+00', 'cloud', 'api_key', 'created', '1.0', 'lrn:cloud:user:788a10b160b0dd27defff53db40eb8f8', '["lrn:cloud:api_key:1b3639c6d263657fb2a79830afd1dd0c"]', 'lrn:cloud:account:01234c80fe02ff53286ce0657cf36380', NULL, '{"name":"revoked","prefix":"cpk_467b8396"}');
INSERT INTO public.audit_events VALUES ('da2fc89619f1e59a85219d1e1bfaedea', '01234c80fe02ff53286ce0657cf36380', '2026-01-02 03:04:05+00', 'cloud', 'session', 'signed_in', '1.0', 'lrn:cloud:user:788a10b160b0dd27defff53db40eb8f8', '["lrn:cloud:session:57cdb935ea2349005ef7b76c2470f316"]', 'lrn:cloud:account:01234c80fe02ff53286ce0657cf36380', NULL, '{"email":"owner@example.com","source_ip":"192.0.2.7"}');
INSERT INTO public.audit_events VALUES ('ca4b84d50dfee09050baec5fe2c34db6', '01234c80fe02ff53286ce0657cf36380', '2026-01-02 03:04:05+00', 'cloud', 'filesystem', 'created', '1.0', 'lrn:cloud:user:788a10b160b0dd27defff53db40eb8f8', '["lrn:cloud:filesystem:8f8bff28df38f19a9ba51eaf003b306f"]', 'lrn:cloud:account:01234c80fe02ff53286ce0657cf36380', NULL, '{"name":"datasets","region":"us-east-1"}');
INSERT INTO public.audit_events VALUES ('e580ee1670139d49e47452f04bdd0547', '01234c80fe02ff53286ce0657cf36380', '2026-01-02 03:04:05+00', 'cloud', 'filesystem', 'created', '1.0', 'lrn:cloud:user:788a10b160b0dd27defff53db40eb8f8', '["lrn:cloud:filesystem:e128ab5189c4a37f41598aaffdbb228a"]', 'lrn:cloud:account:01234c80fe02ff53286ce0657cf36380', NULL, '{"name":"scratch","region":"us-east-1"}');
INSERT INTO public.audit_events VALUES ('f291aadac5523aca172c8091374f5e3b', '01234c80fe02ff53286ce0657cf36380', '2026-01-02 03:04:05+00', 'cloud', 'firewall_ruleset', 'created', '1.0', 'lrn:cloud:user:788a10b160b0dd27defff53db40eb8f8', '["lrn:cloud:firewall_ruleset:c3ea4a50b0d76de4551bb6c9b93ab021"]', 'lrn:cloud:account:01234c80fe02ff53286ce0657cf36380', NULL, '{"name":"web","region":"us-east-1","rules":[{"protocol":"tcp","port_range":[443,443],"source_network":"0.0.0.0/0","description":"https"}]}');
INSERT INTO public.audit_events VALUES ('044a28a96402e6327bffb15587763d16', '01234c80fe02ff53286ce0657cf36380', '2026-01-02 03:04:05+00', 'cloud', 'ssh_key', 'created', '1.0', 'lrn:cloud:user:788a10b160b0dd27defff53db40eb8f8', '["lrn:cloud:ssh_key:67e5eae37eed7c6b7f70493790d112d0"]', 'lrn:cloud:account:01234c80fe02ff53286ce0657cf36380', NULL, '{"generated":true,"name":"generated"}');
INSERT INTO public.audit_events VALUES ('de694452dbabfebe903016e12d636de9', '01234c80fe02ff53286ce0657cf36380', '2026-01-02 03:04:05+00', 'cloud', 'instance', 'launched', '1.0', 'lrn:cloud:user:788a10b160b0dd27defff53db40eb8f8', '["lrn:cloud:instance:f75163482e1c081c4606d1fb8a4fc579"]', 'lrn:cloud:account:01234c80fe02ff53286ce0657cf36380', NULL, '{"instance_type_name":"gpu_1x_a10","name":"trainer","region_name":"us-east-1"}');
INSERT INTO public.audit_events VALUES ('1bfad24647f484d6a37d8fbdb7851c12', '01234c80fe02ff53286ce0657cf36380', '2026-01-02 03:04:05+00', 'cloud', 'webhook', 'created', '1.0', 'lrn:cloud:user:788a10b160b0dd27defff53db40eb8f8', '["lrn:cloud:webhook:3b929219d50d7146670b5c93de3fe991"]', 'lrn:cloud:account:01234c80fe02ff53286ce0657cf36380', NULL, '{"token_changed":true,"url":"https://hooks.example.com/cloudplane"}');
INSERT INTO public.audit_events VALUES ('9f1382ca5fc7bd1c4b2f3d17a9eb2281', '01234c80fe02ff53286ce0657cf36380', '2026-01-02 03:04:05+00', 'cloud', 'ticket', 'created', '1.0', 'lrn:cloud:user:788a10b160b0dd27defff53db40eb8f8', '["lrn:cloud:ticket:d3c845750179b5bd257380c052b9723b"]', 'lrn:cloud:account:01234c80fe02ff53286ce0657cf36380', NULL, '{"severity":"sev_2","subject":"GPU lost","type":"incident"}');
INSERT INTO public.audit_events VALUES ('8bb44614f165c05103e3d7bfc7219dcf', '01234c80fe02ff53286ce0657cf36380', '2026-01-02 03:04:05+00', 'cloud', 'ticket', 'updated', '1.0', 'lrn:cloud:user:2d4623f9e9f16ba4d9efe2faac440e97', '["lrn:cloud:ticket:d3c845750179b5bd257380c052b9723b"]', 'lrn:cloud:account:01234c80fe02ff53286ce0657cf36380', NULL, '{"comment_added":true,"status":{"from":"new","to":"open"}}');
INSERT INTO public.audit_events VALUES ('2cee613723b54da104e404218cbffb82', '01234c80fe02ff53286ce0657cf36380', '2026-01-02 03:04:05+00', 'cloud', 'ticket', 'updated', '1.0', 'lrn:cloud:user:788a10b160b0dd27defff53db40eb8f8', '["lrn:cloud:ticket:d3c845750179b5bd257380c052b9723b"]', 'lrn:cloud:account:01234c80fe02ff53286ce0657cf36380', NULL, '{"comment_added":true}');


--
-- Data for Name: capacity_locks; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.capacity_locks VALUES ('gpu_1x_a10', 'us-east-1');


--
-- Data for Name: filesystems; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.filesystems VALUES ('8f8bff28df38f19a9ba51eaf003b306f', '01234c80fe02ff53286ce0657cf36380', 'datasets', 'us-east-1', '788a10b160b0dd27defff53db40eb8f8', 0, '2026-01-02 03:04:05+00', '2026-01-02 03:04:05+00');
INSERT INTO public.filesystems VALUES ('e128ab5189c4a37f41598aaffdbb228a', '01234c80fe02ff53286ce0657cf36380', 'scratch', 'us-east-1', '788a10b160b0dd27defff53db40eb8f8', 0, '2026-01-02 03:04:05+00', '2026-01-02 03:04:05+00');


--
-- Data for Name: firewall_rulesets; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.firewall_rulesets VALUES ('c3ea4a50b0d76de4551bb6c9b93ab021', '01234c80fe02ff53286ce0657cf36380', 'web', 'us-east-1', '[{"protocol":"tcp","port_range":[443,443],"source_network":"0.0.0.0/0","description":"https"}]', '2026-01-02 03:04:05+00', '2026-01-02 03:04:05+00');


--
-- Data for Name: instance_filesystems; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.instance_filesystems VALUES ('f75163482e1c081c4606d1fb8a4fc579', '8f8bff28df38f19a9ba51eaf003b306f', '/lambda/nfs/datasets');


--
-- Data for Name: instance_rulesets; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.instance_rulesets VALUES ('f75163482e1c081c4606d1fb8a4fc579', 'c3ea4a50b0d76de4551bb6c9b93ab021');


--
-- Data for Name: instances; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.instances VALUES ('f75163482e1c081c4606d1fb8a4fc579', '01234c80fe02ff53286ce0657cf36380', 'trainer', 'us-east-1', 'gpu_1x_a10', 'booting', '2026-01-02 03:05:05+00', '198.18.35.214', '10.134.173.171', '198-18-35-214', '["generated"]', '2026-01-02 03:04:05+00', '2026-01-02 03:04:05+00', '[{"key":"team","value":"ml"}]');


--
-- Data for Name: schema_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.schema_migrations VALUES ('0001_initial');


--
-- Data for Name: sessions; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.sessions VALUES ('57cdb935ea2349005ef7b76c2470f316', 'f7e3fb2c0bb444f2d4047e284db37dbc68e9946320689e17d35df6f7ee8de0a7', '788a10b160b0dd27defff53db40eb8f8', 'b3daf975fb6724e36cc486ed2ae11c66aaa6b4ae3990ab7bd7b6831cf099944e', '', '192.0.2.7', '2026-01-02 03:04:05+00', '2026-01-02 03:04:05+00');


--
-- Data for Name: settings; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: ssh_keys; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.ssh_keys VALUES ('67e5eae37eed7c6b7f70493790d112d0', '01234c80fe02ff53286ce0657cf36380', 'generated', 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBWzquIuaogOWFPUz3WPhGHvaqTa6xUawv1c48ihriRS', '2026-01-02 03:04:05+00');


--
-- Data for Name: ticket_comments; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.ticket_comments VALUES ('be7121911119e4b658dfaaae799ec01c', 'd3c845750179b5bd257380c052b9723b', 0, '788a10b160b0dd27defff53db40eb8f8', 'owner@example.com', 'nvidia-smi shows none', '2026-01-02 03:04:05+00');
INSERT INTO public.ticket_comments VALUES ('9f4e0441a0777177feb515e9480fd0bd', 'd3c845750179b5bd257380c052b9723b', 1, '2d4623f9e9f16ba4d9efe2faac440e97', 'support', 'Looking into it.', '2026-01-02 03:04:05+00');
INSERT INTO public.ticket_comments VALUES ('e596b98213659e0c3d56d6c6a88462d5', 'd3c845750179b5bd257380c052b9723b', 2, '788a10b160b0dd27defff53db40eb8f8', 'owner@example.com', 'Thanks.', '2026-01-02 03:04:05+00');


--
-- Data for Name: tickets; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.tickets VALUES ('d3c845750179b5bd257380c052b9723b', '01234c80fe02ff53286ce0657cf36380', '788a10b160b0dd27defff53db40eb8f8', 'GPU lost', 'nvidia-smi shows none', 'incident', 'sev_2', 'open', NULL, 'f75163482e1c081c4606d1fb8a4fc579', NULL, 'dashboard', '2026-01-02 03:04:05+00', '2026-01-02 03:04:05+00', NULL);


--
-- Data for Name: users; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.users VALUES ('788a10b160b0dd27defff53db40eb8f8', '01234c80fe02ff53286ce0657cf36380', 'owner@example.com', '$2a$04$1sF2axiBYnTQZtUEy5cey.7fpstvTD3M9d4D1iezMLVlNkuj75pMm', 'owner', 'active', '2026-01-02 03:04:05+00', '2026-01-02 03:04:05+00');
INSERT INTO public.users VALUES ('2d4623f9e9f16ba4d9efe2faac440e97', NULL, 'help@example.com', '$2a$04$FV.j9KqCMenxYcflYH8Qv.S/FOj2jh8dIw3zCO6dhfIzN5hYdeIku', 'support', 'active', '2026-01-02 03:04:05+00', '2026-01-02 03:04:05+00');


--
-- Data for Name: webhook_attempts; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.webhook_attempts VALUES ('d80bf81b2a2aaf79c289008cb2b944d5', '8efa92bb7f46b18cf9638784fb3f9e6d', 1, '3b929219d50d7146670b5c93de3fe991', 'https://hooks.example.com/cloudplane', '2026-01-02 03:04:05+00', 0, '203.0.113.9:443', '{"Authorization":"Bearer cpwh_tRLR****"}', 500, '{"Content-Type":["text/plain"]}', '\x6f6f7073', false, 'http', 'HTTP 500', false, '2026-01-02 03:04:05+00');
INSERT INTO public.webhook_attempts VALUES ('c04d05071e351609610cbf601e7e7dba', 'db4a80e48b42656e223e70c2e88da9f3', 1, '3b929219d50d7146670b5c93de3fe991', 'https://hooks.example.com/cloudplane', '2026-01-02 03:04:05+00', 0, '203.0.113.9:443', '{"Authorization":"Bearer cpwh_tRLR****"}', 500, '{"Content-Type":["text/plain"]}', '\x6f6f7073', false, 'http', 'HTTP 500', false, '2026-01-02 03:04:05+00');


--
-- Data for Name: webhook_deliveries; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.webhook_deliveries VALUES ('8efa92bb7f46b18cf9638784fb3f9e6d', '42f91e996aeb7ed4fda556c1876a7e8e', '3b929219d50d7146670b5c93de3fe991', 'pending', '2026-01-02 03:05:05+00', 1, 1, '', NULL, 500, 'HTTP 500', '2026-01-02 03:04:05+00', '2026-01-02 03:04:05+00', NULL);
INSERT INTO public.webhook_deliveries VALUES ('db4a80e48b42656e223e70c2e88da9f3', 'ec732fba81c8b4d32c6675eb79bb7368', '3b929219d50d7146670b5c93de3fe991', 'pending', '2026-01-02 03:05:05+00', 1, 1, '', NULL, 500, 'HTTP 500', '2026-01-02 03:04:05+00', '2026-01-02 03:04:05+00', NULL);


--
-- Data for Name: webhook_endpoints; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.webhook_endpoints VALUES ('3b929219d50d7146670b5c93de3fe991', '01234c80fe02ff53286ce0657cf36380', 'https://hooks.example.com/cloudplane', 'cpwh_tRLRQs2cKjdyfZmLu9QEkVhHhQl4bxz5SFWpXtAWUec', 'whsec_koX4zUdfwdviHwh59QHpOh/IOeejc4p7P9UMjx3T0xo=', true, '', NULL, '2026-01-02 03:04:05+00', '2026-01-02 03:04:05+00');


--
-- Data for Name: webhook_events; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.webhook_events VALUES ('ec732fba81c8b4d32c6675eb79bb7368', '01234c80fe02ff53286ce0657cf36380', 'ticket.created', 'd3c845750179b5bd257380c052b9723b', '{"id":"ec732fba81c8b4d32c6675eb79bb7368","object":"event","type":"ticket.created","created":1767323045,"api_version":"2026-01-01","data":{"object":"ticket","id":"d3c845750179b5bd257380c052b9723b","subject":"GPU lost","description":"nvidia-smi shows none","request_type":"incident","severity":"sev_2","status":"new","created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:05Z","instance_ip":null,"instance_id":"f75163482e1c081c4606d1fb8a4fc579","cluster_id":null,"source":"dashboard"}}', '2026-01-02 03:04:05+00');
INSERT INTO public.webhook_events VALUES ('42f91e996aeb7ed4fda556c1876a7e8e', '01234c80fe02ff53286ce0657cf36380', 'ticket.status_changed', 'd3c845750179b5bd257380c052b9723b', '{"id":"42f91e996aeb7ed4fda556c1876a7e8e","object":"event","type":"ticket.status_changed","created":1767323045,"api_version":"2026-01-01","data":{"object":"ticket","id":"d3c845750179b5bd257380c052b9723b","subject":"GPU lost","description":"nvidia-smi shows none","request_type":"incident","severity":"sev_2","status":"open","created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:05Z","instance_ip":null,"instance_id":"f75163482e1c081c4606d1fb8a4fc579","cluster_id":null,"source":"dashboard"}}', '2026-01-02 03:04:05+00');


--
-- Name: account_versions account_versions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.account_versions
    ADD CONSTRAINT account_versions_pkey PRIMARY KEY (account_id);


--
-- Name: accounts accounts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.accounts
    ADD CONSTRAINT accounts_pkey PRIMARY KEY (id);


--
-- Name: api_keys api_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);


--
-- Name: audit_events audit_events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_events
    ADD CONSTRAINT audit_events_pkey PRIMARY KEY (id);


--
-- Name: capacity_locks capacity_locks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.capacity_locks
    ADD CONSTRAINT capacity_locks_pkey PRIMARY KEY (instance_type_name, region_name);


--
-- Name: filesystems filesystems_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.filesystems
    ADD CONSTRAINT filesystems_pkey PRIMARY KEY (id);


--
-- Name: firewall_rulesets firewall_rulesets_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.firewall_rulesets
    ADD CONSTRAINT firewall_rulesets_pkey PRIMARY KEY (id);


--
-- Name: instance_filesystems instance_filesystems_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.instance_filesystems
    ADD CONSTRAINT instance_filesystems_pkey PRIMARY KEY (instance_id, filesystem_id);


--
-- Name: instance_rulesets instance_rulesets_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.instance_rulesets
    ADD CONSTRAINT instance_rulesets_pkey PRIMARY KEY (instance_id, ruleset_id);


--
-- Name: instances instances_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.instances
    ADD CONSTRAINT instances_pkey PRIMARY KEY (id);


--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (id);


--
-- Name: sessions sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_pkey PRIMARY KEY (id);


--
-- Name: settings settings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.settings
    ADD CONSTRAINT settings_pkey PRIMARY KEY (name);


--
-- Name: ssh_keys ssh_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ssh_keys
    ADD CONSTRAINT ssh_keys_pkey PRIMARY KEY (id);


--
-- Name: ticket_comments ticket_comments_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ticket_comments
    ADD CONSTRAINT ticket_comments_pkey PRIMARY KEY (id);


--
-- Name: tickets tickets_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tickets
    ADD CONSTRAINT tickets_pkey PRIMARY KEY (id);


--
-- Name: users users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);


--
-- Name: webhook_attempts webhook_attempts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_attempts
    ADD CONSTRAINT webhook_attempts_pkey PRIMARY KEY (id);


--
-- Name: webhook_deliveries webhook_deliveries_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id);


--
-- Name: webhook_endpoints webhook_endpoints_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_endpoints
    ADD CONSTRAINT webhook_endpoints_pkey PRIMARY KEY (id);


--
-- Name: webhook_events webhook_events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_events
    ADD CONSTRAINT webhook_events_pkey PRIMARY KEY (id);


--
-- Name: idx_api_keys_account_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_api_keys_account_id ON public.api_keys USING btree (account_id);


--
-- Name: idx_api_keys_hash; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_api_keys_hash ON public.api_keys USING btree (hash);


--
-- Name: idx_api_keys_prefix; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_api_keys_prefix ON public.api_keys USING btree (prefix);


--
-- Name: idx_audit_account_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_audit_account_time ON public.audit_events USING btree (account_id, event_time, id);


--
-- Name: idx_audit_account_type_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_audit_account_type_time ON public.audit_events USING btree (account_id, service_name, resource_name, event_time, id);


--
-- Name: idx_filesystems_account_name; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_filesystems_account_name ON public.filesystems USING btree (account_id, name);


--
-- Name: idx_firewall_rulesets_account_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_firewall_rulesets_account_id ON public.firewall_rulesets USING btree (account_id);


--
-- Name: idx_instance_filesystems_filesystem_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_instance_filesystems_filesystem_id ON public.instance_filesystems USING btree (filesystem_id);


--
-- Name: idx_instance_rulesets_ruleset_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_instance_rulesets_ruleset_id ON public.instance_rulesets USING btree (ruleset_id);


--
-- Name: idx_instances_account_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_instances_account_id ON public.instances USING btree (account_id);


--
-- Name: idx_instances_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_instances_status ON public.instances USING btree (status);


--
-- Name: idx_sessions_token_hash; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_sessions_token_hash ON public.sessions USING btree (token_hash);


--
-- Name: idx_sessions_user_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_sessions_user_id ON public.sessions USING btree (user_id);


--
-- Name: idx_ssh_keys_account_name; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_ssh_keys_account_name ON public.ssh_keys USING btree (account_id, name);


--
-- Name: idx_ticket_comments_seq; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_ticket_comments_seq ON public.ticket_comments USING btree (ticket_id, seq);


--
-- Name: idx_tickets_account_created; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_tickets_account_created ON public.tickets USING btree (account_id, created_at);


--
-- Name: idx_tickets_account_updated; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_tickets_account_updated ON public.tickets USING btree (account_id, updated_at);


--
-- Name: idx_tickets_created; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_tickets_created ON public.tickets USING btree (created_at);


--
-- Name: idx_tickets_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_tickets_status ON public.tickets USING btree (status);


--
-- Name: idx_tickets_updated; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_tickets_updated ON public.tickets USING btree (updated_at);


--
-- Name: idx_users_account_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_users_account_id ON public.users USING btree (account_id);


--
-- Name: idx_users_email; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_users_email ON public.users USING btree (email);


--
-- Name: idx_webhook_attempts_endpoint_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_webhook_attempts_endpoint_time ON public.webhook_attempts USING btree (endpoint_id, started_at);


--
-- Name: idx_webhook_attempts_number; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_webhook_attempts_number ON public.webhook_attempts USING btree (delivery_id, number);


--
-- Name: idx_webhook_deliveries_created_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_webhook_deliveries_created_at ON public.webhook_deliveries USING btree (created_at);


--
-- Name: idx_webhook_deliveries_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_webhook_deliveries_due ON public.webhook_deliveries USING btree (status, next_attempt_at);


--
-- Name: idx_webhook_deliveries_endpoint_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_webhook_deliveries_endpoint_id ON public.webhook_deliveries USING btree (endpoint_id);


--
-- Name: idx_webhook_deliveries_event_endpoint; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_webhook_deliveries_event_endpoint ON public.webhook_deliveries USING btree (event_id, endpoint_id);


--
-- Name: idx_webhook_endpoints_account_id; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_webhook_endpoints_account_id ON public.webhook_endpoints USING btree (account_id);


--
-- Name: idx_webhook_events_account_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_webhook_events_account_id ON public.webhook_events USING btree (account_id);


--
-- Name: idx_webhook_events_created_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_webhook_events_created_at ON public.webhook_events USING btree (created_at);


--
-- Name: idx_webhook_events_ticket_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_webhook_events_ticket_id ON public.webhook_events USING btree (ticket_id);


--
-- PostgreSQL database dump complete
--

\unrestrict VM7CSGMsILya8lK0jDNecLQHV1TZAdrILp7sm9iivwdq9aM5G6k5IXEuDainlM9

