"""The employee-data domain: loading files (:mod:`.employees`), the query language (:mod:`.query`),
access rules and the audit log (:mod:`.access`), and PostgreSQL site mode (:mod:`.database`)."""
