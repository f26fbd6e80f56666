#!/bin/sh
# LocalStack runs this once its services are ready. Nothing is created here:
# `npm run start:localstack` creates the tables, bucket and queues that
# serverless.yml declares when it starts, and `npm run deploy:localstack`
# deploys the whole CloudFormation stack. This only marks readiness in the log.
echo "docrender: LocalStack ready"
