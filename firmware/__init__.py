"""The appliance: event loop, journal, screens, choosers, enrolment, CLI and service glue."""
